import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import request from 'supertest';
import type { OpenAPIObject } from '@nestjs/swagger';
import { RouteTable } from '../../src/http/json-api/route-table';
import {
  DOCUMENT_SERVER,
  OpenApiService,
} from '../../src/http/openapi/openapi.service';
import { launchChromium } from '../support/browser';
import { createMerchant, Merchant } from '../support/factories';
import { lintOpenApi } from '../support/openapi-lint';
import { ResponseContract } from '../support/openapi-contract';
import { startTestApp, TestApp } from '../support/test-app';

const CHECKED_IN = 'docs/openapi.json';
const SCREENSHOT = 'docs/openapi-reference.png';
const PNG_SIGNATURE = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]);

describe('the OpenAPI document', () => {
  let t: TestApp;
  let merchant: Merchant;
  let spec: OpenAPIObject;

  beforeAll(async () => {
    t = await startTestApp();
    merchant = await createMerchant(t.app);
    const response = await request(t.baseUrl).get('/v1/openapi.json');
    expect(response.status).toBe(200);
    spec = response.body as OpenAPIObject;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('is served without a key, as OpenAPI 3.1 naming this server', async () => {
    const response = await request(t.baseUrl).get('/v1/openapi.json');
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(spec.openapi).toBe('3.1.0');
    expect(spec.servers).toEqual([{ url: t.baseUrl }]);
    expect(spec.components?.securitySchemes?.apiKey).toMatchObject({
      type: 'http',
      scheme: 'bearer',
    });
  });

  it('passes the lint: structure, schemas, $refs, ids, and the route table both ways', () => {
    expect(lintOpenApi(spec, t.app.get(RouteTable))).toEqual([]);
  });

  it('fails the lint when a served route is missing or a $ref dangles', () => {
    const broken = structuredClone(spec);
    delete broken.paths['/v1/stores/{id}'];
    (broken.paths['/v1/stores'].get!.responses['200'] as object) = {
      description: 'x',
      content: {
        'application/vnd.api+json': {
          schema: { $ref: '#/components/schemas/Nope' },
        },
      },
    };
    const problems = lintOpenApi(broken, t.app.get(RouteTable));
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringContaining(
          'GET /v1/stores/:id: served but not documented',
        ),
        expect.stringContaining(
          '$ref #/components/schemas/Nope does not resolve',
        ),
      ]),
    );
  });

  it('documents JSON:API lists with their filters, sorts, includes and pages', () => {
    const list = spec.paths['/v1/orders'].get!;
    const names = (list.parameters ?? []).map((p) =>
      'name' in p ? p.name : p.$ref,
    );
    expect(names).toEqual(
      expect.arrayContaining([
        'page[number]',
        'page[size]',
        'sort',
        'include',
        'filter[store_id]',
        'filter[user_email]',
      ]),
    );
    const variants = spec.paths['/v1/variants'].get!.parameters!.find(
      (p) => 'name' in p && p.name === 'filter[status]',
    );
    expect(variants).toMatchObject({
      schema: { enum: ['pending', 'draft', 'published'] },
    });
    expect(spec.paths['/v1/stores/{id}/products'].get).toBeDefined();
    expect(spec.paths['/v1/orders/{id}/relationships/store'].get).toBeDefined();
  });

  it('takes request bodies from the @JsonApiBody validators', () => {
    const body = spec.paths['/v1/products'].post!.requestBody as {
      content: Record<
        string,
        {
          schema: {
            properties: {
              data: {
                properties: {
                  attributes: {
                    properties: Record<string, unknown>;
                    required: string[];
                  };
                };
              };
            };
          };
        }
      >;
    };
    const attributes =
      body.content['application/vnd.api+json'].schema.properties.data.properties
        .attributes;
    expect(attributes.required).toEqual(['name']);
    expect(attributes.properties.status).toEqual({
      enum: ['draft', 'published'],
    });
    expect(attributes.properties.name).toMatchObject({
      type: 'string',
      maxLength: 255,
    });
  });

  it('marks the License API and the hosted pages public and plain', () => {
    const activate = spec.paths['/v1/licenses/activate'].post!;
    expect(activate.security).toEqual([]);
    expect(
      Object.keys((activate.responses['200'] as { content: object }).content),
    ).toEqual(['application/json']);
    expect(spec.paths['/checkout/{kind}/{id}'].get!.security).toEqual([]);
    expect(spec.paths['/v1/stores'].get!.security).toBeUndefined();
  });

  it('is checked in as docs/openapi.json, up to date (npm run openapi)', () => {
    expect(existsSync(CHECKED_IN)).toBe(true);
    const current = t.app.get(OpenApiService).build(DOCUMENT_SERVER);
    const checkedIn = JSON.parse(
      readFileSync(CHECKED_IN, 'utf8'),
    ) as OpenAPIObject;
    expect(checkedIn).toEqual(JSON.parse(JSON.stringify(current)));
  });

  it('catches a response that drifts from it', () => {
    const contract = new ResponseContract(spec);
    const good = {
      jsonapi: { version: '1.0' },
      errors: [
        { status: '404', title: 'Not Found', detail: 'x', code: 'not_found' },
      ],
    };
    const base = {
      method: 'GET',
      url: '/v1/stores/99',
      status: 404,
      contentType: 'application/vnd.api+json',
    };
    expect(contract.check({ ...base, body: JSON.stringify(good) })).toBeNull();
    expect(
      contract.check({ ...base, body: JSON.stringify({ ...good, extra: 1 }) }),
    ).toMatch(/does not match/);
    expect(contract.check({ ...base, status: 418, body: '{}' })).toMatch(
      /not documented/,
    );
    expect(
      contract.check({ ...base, contentType: 'text/html', body: '<p>' }),
    ).toMatch(/media type text\/html/);
  });

  it('renders at /docs from the packaged viewer, with no request leaving the server', async () => {
    const page = await request(t.baseUrl).get('/docs');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-security-policy']).toContain(
      "default-src 'none'",
    );
    expect((await request(t.baseUrl).get('/docs/package.json')).status).toBe(
      404,
    );
    expect(
      (await request(t.baseUrl).get('/docs/..%2Fpackage.json')).status,
    ).toBe(404);

    const browser = await launchChromium();
    try {
      const tab = await browser.newPage({
        viewport: { width: 1280, height: 1400 },
      });
      const foreign: string[] = [];
      const failures: string[] = [];
      tab.on('request', (r) => {
        if (!r.url().startsWith(t.baseUrl) && !r.url().startsWith('data:'))
          foreign.push(r.url());
      });
      tab.on('pageerror', (error) => failures.push(error.message));
      tab.on('console', (message) => {
        if (message.type() === 'error') failures.push(message.text());
      });
      await tab.goto(`${t.baseUrl}/docs`);
      await tab.waitForSelector('.opblock', { timeout: 120000 });
      expect(await tab.locator('.info .title').innerText()).toContain(
        'Zest API',
      );
      // The viewer parsed every operation and resolved every $ref without error.
      const viewer = await tab.evaluate(() => {
        const ui = (
          window as unknown as {
            ui: {
              specSelectors: { operations(): { size: number } };
              errSelectors: { allErrors(): { toJS(): unknown[] } };
            };
          }
        ).ui;
        return {
          operations: ui.specSelectors.operations().size,
          errors: ui.errSelectors.allErrors().toJS(),
        };
      });
      const operations = Object.values(spec.paths).flatMap((item) =>
        ['get', 'post', 'put', 'patch', 'delete'].filter(
          (method) => method in item,
        ),
      ).length;
      expect(viewer).toEqual({ operations, errors: [] });
      // One list operation opened, for the screenshot.
      // The viewer's tag filter brings one resource to the top.
      await tab.evaluate(() =>
        (
          window as unknown as {
            ui: { layoutActions: { updateFilter(tag: string): void } };
          }
        ).ui.layoutActions.updateFilter('products'),
      );
      const products = tab
        .locator('.opblock-summary', { hasText: 'List products' })
        .first();
      await products.waitFor({ timeout: 60000 });
      await products.scrollIntoViewIfNeeded();
      await products.click();
      await tab.locator('text=filter[store_id]').first().waitFor();
      const png = await tab.screenshot();
      // A PNG of the whole viewport (IHDR width and height).
      expect(png.subarray(0, 8)).toEqual(PNG_SIGNATURE);
      expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([
        1280, 1400,
      ]);
      // The checked-in copy changes only when asked, so a test run leaves the tree clean.
      if (process.env.UPDATE_SCREENSHOTS === '1')
        writeFileSync(SCREENSHOT, png);
      expect(foreign).toEqual([]);
      expect(failures).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 240000);

  it('documents the authenticated user (contract-checked like every response)', async () => {
    const me = await request(t.baseUrl)
      .get('/v1/users/me')
      .set('Authorization', `Bearer ${merchant.testKey}`);
    expect(me.status).toBe(200);
  });
});
