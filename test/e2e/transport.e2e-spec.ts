import request from 'supertest';
import { createMerchant, Merchant } from '../support/factories';
import { startTestApp, TestApp } from '../support/test-app';

const PROXY = 'proxy.zest.test:8443';

describe('HTTPS only and CORS', () => {
  let t: TestApp;
  let merchant: Merchant;

  beforeAll(async () => {
    t = await startTestApp({
      REQUIRE_HTTPS: 'true',
      // Only the loopback proxy's X-Forwarded-Proto is believed.
      TRUST_PROXY: '127.0.0.1',
      PROXY_BASE_URL: `https://${PROXY}`,
    });
    merchant = await createMerchant(t.app);
  });
  afterAll(() => t.close());

  const me = () =>
    request(t.baseUrl)
      .get('/v1/users/me')
      .set('Authorization', `Bearer ${merchant.testKey}`);

  describe('REQUIRE_HTTPS', () => {
    it('refuses a plain-HTTP request with a 400 JSON:API error', async () => {
      const response = await me().expect(400);
      expect(response.headers['content-type']).toMatch(
        /^application\/vnd\.api\+json/,
      );
      expect(response.body.errors[0]).toMatchObject({
        status: '400',
        title: 'Bad Request',
        detail: expect.stringMatching(/HTTPS is required/),
      });
    });

    it('refuses before authentication and routing too, readable cross-origin', async () => {
      const response = await request(t.baseUrl)
        .get('/v1/users/me')
        .set('Origin', 'https://app.example.com')
        .expect(400);
      expect(response.headers['access-control-allow-origin']).toBe('*');
      await request(t.baseUrl).get('/v1/nothing').expect(400);
    });

    it('accepts X-Forwarded-Proto: https from the trusted proxy', async () => {
      await me().set('X-Forwarded-Proto', 'https').expect(200);
    });

    it('keeps health endpoints reachable over plain HTTP', async () => {
      await request(t.baseUrl).get('/health/live').expect(200);
      await request(t.baseUrl).get('/health/ready').expect(200);
    });
  });

  describe('CORS', () => {
    const https = (call: request.Test) =>
      call.set('X-Forwarded-Proto', 'https');

    it('allows any origin without credentials and exposes the rate-limit headers', async () => {
      const response = await https(me())
        .set('Origin', 'https://app.example.com')
        .expect(200);
      expect(response.headers['access-control-allow-origin']).toBe('*');
      expect(
        response.headers['access-control-allow-credentials'],
      ).toBeUndefined();
      expect(response.headers['access-control-expose-headers']).toMatch(
        /X-Ratelimit-Remaining/,
      );
    });

    it('answers a preflight with the allowed methods', async () => {
      const response = await https(request(t.baseUrl).options('/v1/stores'))
        .set('Origin', 'https://app.example.com')
        .set('Access-Control-Request-Method', 'POST')
        .set('Access-Control-Request-Headers', 'authorization,content-type')
        .expect(204);
      expect(response.headers['access-control-allow-origin']).toBe('*');
      expect(response.headers['access-control-allow-methods']).toMatch(/POST/);
      expect(response.headers['access-control-allow-headers']).toMatch(
        /authorization/i,
      );
      expect(response.headers['access-control-max-age']).toBe('86400');
      expect(response.headers.vary).toMatch(/Origin/);
      expect(response.text).toBe('');
    });

    it('answers a preflight on any path, before authentication', async () => {
      const response = await https(
        request(t.baseUrl).options('/v1/license-keys/12'),
      )
        .set('Origin', 'https://app.example.com')
        .set('Access-Control-Request-Method', 'DELETE')
        .expect(204);
      expect(response.headers['access-control-allow-methods']).toMatch(
        /DELETE/,
      );
      expect(response.headers['access-control-allow-headers']).toBeUndefined();
    });

    it('puts the CORS headers on error responses too', async () => {
      const response = await https(request(t.baseUrl).get('/v1/stores'))
        .set('Origin', 'https://app.example.com')
        .expect(401);
      expect(response.headers['access-control-allow-origin']).toBe('*');
      expect(response.headers['access-control-expose-headers']).toMatch(
        /X-Request-Id/,
      );
    });

    it('refuses Origin: null on the main address, request and preflight', async () => {
      const response = await https(me()).set('Origin', 'null').expect(403);
      expect(response.body.errors[0]).toMatchObject({
        status: '403',
        title: 'Forbidden',
      });
      expect(response.headers['access-control-allow-origin']).toBeUndefined();
      await https(request(t.baseUrl).options('/v1/stores'))
        .set('Origin', 'null')
        .set('Access-Control-Request-Method', 'GET')
        .expect(403);
    });

    it('accepts Origin: null on the proxy address (its own host)', async () => {
      const response = await https(me())
        .set('Host', PROXY)
        .set('Origin', 'null')
        .expect(200);
      expect(response.headers['access-control-allow-origin']).toBe('*');
      await https(request(t.baseUrl).options('/v1/stores'))
        .set('Host', PROXY)
        .set('Origin', 'null')
        .set('Access-Control-Request-Method', 'GET')
        .expect(204);
    });
  });

  describe('with X-Forwarded-Proto from an address that is not a trusted proxy', () => {
    let untrusted: TestApp;
    beforeAll(async () => {
      untrusted = await startTestApp({
        REQUIRE_HTTPS: 'true',
        TRUST_PROXY: '10.0.0.0/8',
      });
    });
    afterAll(() => untrusted.close());

    it('still refuses the request', async () => {
      await request(untrusted.baseUrl)
        .get('/v1/users/me')
        .set('Authorization', `Bearer ${merchant.testKey}`)
        .set('X-Forwarded-Proto', 'https')
        .expect(400);
    });
  });
});
