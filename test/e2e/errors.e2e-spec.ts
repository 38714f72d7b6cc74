import request from 'supertest';
import { createMerchant, Merchant } from '../support/factories';
import { startTestApp, TestApp } from '../support/test-app';
import { TestRoutesModule } from '../support/test-routes.module';

const echo = (attributes: object) =>
  JSON.stringify({ data: { type: 'test-echoes', attributes } });

interface Case {
  name: string;
  method: 'get' | 'post' | 'patch' | 'delete' | 'put';
  path: string;
  /** 'none', 'valid' (the default) or a literal Authorization header. */
  auth?: string;
  status: number;
  /** The error's `code`. */
  code: string;
  parameter?: string;
  headers?: Record<string, string>;
  /** Request body and its Content-Type. */
  body?: string;
  contentType?: string;
  requestHeaders?: Record<string, string>;
  pointer?: string;
  /** `source.header` of the error. */
  header?: string;
}

describe('error contract', () => {
  let t: TestApp;
  let merchant: Merchant;

  beforeAll(async () => {
    // A test-only POST route: production has none of its own in this module.
    t = await startTestApp({}, { modules: [TestRoutesModule] });
    merchant = await createMerchant(t.app);
  });
  afterAll(() => t.close());

  const cases: Case[] = [
    {
      name: 'no Authorization header',
      method: 'get',
      path: '/v1/stores',
      auth: 'none',
      status: 401,
      code: 'authentication_required',
    },
    {
      name: 'not a bearer header',
      method: 'get',
      path: '/v1/stores',
      auth: 'Basic abc',
      status: 401,
      code: 'authorization_malformed',
    },
    {
      name: 'malformed key',
      method: 'get',
      path: '/v1/stores',
      auth: 'Bearer nope',
      status: 401,
      code: 'api_key_malformed',
    },
    {
      name: 'unknown well-formed key',
      method: 'get',
      path: '/v1/stores',
      auth: `Bearer zest_test_${'A'.repeat(43)}`,
      status: 401,
      code: 'api_key_invalid',
    },
    {
      name: 'unknown route (before auth)',
      method: 'get',
      path: '/v1/no-such-thing',
      auth: 'none',
      status: 404,
      code: 'route_not_found',
    },
    {
      name: 'wrong method on a known path',
      method: 'delete',
      path: '/v1/stores',
      status: 405,
      code: 'method_not_allowed',
      headers: { allow: 'GET, POST' },
    },
    {
      name: 'page size above 100',
      method: 'get',
      path: '/v1/stores?page[size]=101',
      status: 400,
      code: 'invalid_parameter',
      parameter: 'page[size]',
    },
    {
      name: 'page number zero',
      method: 'get',
      path: '/v1/stores?page[number]=0',
      status: 400,
      code: 'invalid_parameter',
      parameter: 'page[number]',
    },
    {
      name: 'non-integer page',
      method: 'get',
      path: '/v1/stores?page[number]=abc',
      status: 400,
      code: 'invalid_parameter',
      parameter: 'page[number]',
    },
    {
      name: 'unknown filter',
      method: 'get',
      path: '/v1/stores?filter[color]=red',
      status: 400,
      code: 'unknown_parameter',
      parameter: 'filter[color]',
    },
    {
      name: 'unknown include',
      method: 'get',
      path: '/v1/stores?include=owners',
      status: 400,
      code: 'invalid_parameter',
      parameter: 'include',
    },
    {
      name: 'unknown sort',
      method: 'get',
      path: '/v1/stores?sort=-price',
      status: 400,
      code: 'invalid_parameter',
      parameter: 'sort',
    },
    {
      name: 'unknown query parameter',
      method: 'get',
      path: '/v1/stores?foo=1',
      status: 400,
      code: 'unknown_parameter',
      parameter: 'foo',
    },
    {
      name: 'repeated parameter',
      method: 'get',
      path: '/v1/stores?sort=name&sort=-name',
      status: 400,
      code: 'repeated_parameter',
      parameter: 'sort',
    },
    {
      name: 'missing record',
      method: 'get',
      path: '/v1/stores/999999',
      status: 404,
      code: 'not_found',
    },
    {
      name: 'non-numeric id',
      method: 'get',
      path: '/v1/stores/abc',
      status: 404,
      code: 'not_found',
    },
    {
      name: 'body over 1 MiB',
      method: 'post',
      path: '/v1/test-echoes',
      status: 413,
      code: 'body_too_large',
      contentType: 'application/vnd.api+json',
      body: echo({ message: 'x'.repeat(1024 * 1024) }),
    },
    {
      name: 'text/plain body',
      method: 'post',
      path: '/v1/test-echoes',
      status: 415,
      code: 'unsupported_media_type',
      contentType: 'text/plain',
      body: echo({ message: 'x' }),
    },
    {
      name: 'XML body',
      method: 'post',
      path: '/v1/test-echoes',
      status: 415,
      code: 'unsupported_media_type',
      contentType: 'application/xml',
      body: '<data/>',
    },
    {
      name: 'malformed JSON',
      method: 'post',
      path: '/v1/test-echoes',
      status: 400,
      code: 'malformed_request',
      contentType: 'application/vnd.api+json',
      body: '{"data": ',
    },
    {
      name: 'document without data',
      method: 'post',
      path: '/v1/test-echoes',
      status: 400,
      code: 'invalid_document',
      contentType: 'application/json',
      body: '{"meta": {}}',
      pointer: '/data',
    },
    {
      name: 'wrong data.type',
      method: 'post',
      path: '/v1/test-echoes',
      status: 400,
      code: 'invalid_document',
      contentType: 'application/vnd.api+json',
      body: JSON.stringify({ data: { type: 'stores', attributes: {} } }),
      pointer: '/data/type',
    },
    {
      name: 'invalid attribute',
      method: 'post',
      path: '/v1/test-echoes',
      status: 422,
      code: 'invalid_attribute',
      contentType: 'application/vnd.api+json',
      body: echo({ message: 42 }),
      pointer: '/data/attributes/message',
    },
    {
      name: 'Idempotency-Key too long',
      method: 'post',
      path: '/v1/test-echoes',
      status: 400,
      code: 'idempotency_key_invalid',
      contentType: 'application/vnd.api+json',
      body: echo({ message: 'x' }),
      requestHeaders: { 'Idempotency-Key': 'k'.repeat(256) },
      header: 'Idempotency-Key',
    },
  ];

  it.each(cases)('$name → $status', async (c) => {
    let call = request(t.baseUrl)[c.method](c.path);
    if (c.auth === undefined || c.auth === 'valid')
      call = call.set('Authorization', `Bearer ${merchant.testKey}`);
    else if (c.auth !== 'none') call = call.set('Authorization', c.auth);
    for (const [name, value] of Object.entries(c.requestHeaders ?? {}))
      call = call.set(name, value);
    if (c.body !== undefined)
      call = call
        .set('Content-Type', c.contentType ?? 'application/json')
        .send(c.body);
    const response = await call;
    expect(response.status).toBe(c.status);
    expect(response.headers['content-type']).toMatch(
      /^application\/vnd\.api\+json/,
    );
    expect(response.body.jsonapi).toEqual({ version: '1.0' });
    expect(response.body.errors).toHaveLength(1);
    const [error] = response.body.errors;
    expect(error.status).toBe(String(c.status));
    expect(typeof error.title).toBe('string');
    expect(typeof error.detail).toBe('string');
    expect(error.code).toBe(c.code);
    if (c.parameter) expect(error.source).toEqual({ parameter: c.parameter });
    if (c.pointer) expect(error.source).toEqual({ pointer: c.pointer });
    if (c.header) expect(error.source).toEqual({ header: c.header });
    for (const [name, value] of Object.entries(c.headers ?? {}))
      expect(response.headers[name]).toBe(value);
  });

  it('uses the standard reason phrase on the status line and as the title', async () => {
    const response = await request(t.baseUrl).get('/v1/stores');
    expect(
      (response as unknown as { res: { statusMessage: string } }).res
        .statusMessage,
    ).toBe('Unauthorized');
    expect(response.body.errors[0].title).toBe('Unauthorized');
  });

  it('answers 404 for unknown routes before looking at the body', async () => {
    const response = await request(t.baseUrl)
      .post('/v1/no-such-thing')
      .set('Content-Type', 'text/plain')
      .send('hello');
    expect(response.status).toBe(404);
    expect(response.body.errors[0].status).toBe('404');
  });
});
