import request from 'supertest';
import { createMerchant, Merchant } from '../support/factories';
import { startTestApp, TestApp } from '../support/test-app';
import { TestRoutesModule } from '../support/test-routes.module';

/** In one process, on whichever store the environment selects (Redis or memory). */
describe('rate limits', () => {
  let t: TestApp;
  let merchant: Merchant;

  beforeAll(async () => {
    t = await startTestApp(
      {
        RATE_LIMIT_PER_MINUTE: '5',
        LICENSE_RATE_LIMIT_PER_MINUTE: '3',
        AUTH_FAILURE_LIMIT_PER_MINUTE: '4',
        // The client IP comes from X-Forwarded-For, so tests can vary it.
        TRUST_PROXY: 'true',
      },
      { modules: [TestRoutesModule] },
    );
    merchant = await createMerchant(t.app);
  });
  afterAll(() => t.close());

  const me = (key = merchant.testKey) =>
    request(t.baseUrl)
      .get('/v1/users/me')
      .set('Authorization', `Bearer ${key}`);

  it('counts per API key, with headers on success and 429 + Retry-After past the limit', async () => {
    for (let i = 1; i <= 5; i++) {
      const response = await me().expect(200);
      expect(response.headers['x-ratelimit-limit']).toBe('5');
      expect(response.headers['x-ratelimit-remaining']).toBe(String(5 - i));
    }
    const refused = await me().expect(429);
    expect(refused.headers['content-type']).toMatch(
      /^application\/vnd\.api\+json/,
    );
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.body.errors[0]).toMatchObject({
      status: '429',
      title: 'Too Many Requests',
      code: 'rate_limited',
    });
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    // Another key of the same user has its own budget.
    await me(merchant.liveKey).expect(200);
  });

  it('does not count requests that fail authentication or hit no route', async () => {
    const fresh = await createMerchant(t.app);
    for (let i = 0; i < 3; i++) {
      await request(t.baseUrl)
        .get('/v1/users/me')
        .set('Authorization', `Bearer zest_test_${'B'.repeat(43)}`)
        .expect(401);
      await request(t.baseUrl)
        .get('/v1/nothing-here')
        .set('Authorization', `Bearer ${fresh.testKey}`)
        .expect(404);
    }
    const response = await me(fresh.testKey).expect(200);
    expect(response.headers['x-ratelimit-remaining']).toBe('4');
  });

  it('limits a route marked @RateLimit("client-ip") per client IP, without a key', async () => {
    const validate = (ip: string) =>
      request(t.baseUrl)
        .post('/v1/licenses/test-validate')
        .set('X-Forwarded-For', ip)
        .type('form')
        .send({ license_key: 'abc' });
    for (let i = 1; i <= 3; i++) {
      const response = await validate('203.0.113.7').expect(200);
      expect(response.headers['x-ratelimit-limit']).toBe('3');
      expect(response.headers['x-ratelimit-remaining']).toBe(String(3 - i));
    }
    const refused = await validate('203.0.113.7').expect(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.body.errors[0].status).toBe('429');
    await validate('203.0.113.8').expect(200);
  });

  it('answers 401 with Retry-After and a code to an IP past AUTH_FAILURE_LIMIT_PER_MINUTE failed authentications, yet serves its valid keys', async () => {
    const fresh = await createMerchant(t.app);
    const from = (ip: string, authorization?: string) => {
      const call = request(t.baseUrl)
        .get('/v1/users/me')
        .set('X-Forwarded-For', ip);
      return authorization ? call.set('Authorization', authorization) : call;
    };
    const unknown = `Bearer zest_test_${'C'.repeat(43)}`;
    // Every kind of refusal counts: missing, malformed, wrong scheme, unknown.
    const before = [
      await from('198.51.100.9').expect(401),
      await from('198.51.100.9', 'Bearer nope').expect(401),
      await from('198.51.100.9', 'Basic abc').expect(401),
      await from('198.51.100.9', unknown).expect(401),
    ];
    for (const answer of before)
      expect(answer.headers['retry-after']).toBeUndefined();
    // Each with the code of its own refusal, not the limit's.
    expect(before.map((answer) => answer.body.errors[0].code)).toEqual([
      'authentication_required',
      'api_key_malformed',
      'authorization_malformed',
      'api_key_invalid',
    ]);
    // Past the limit: still the spec's 401, now with Retry-After and a code.
    const refused = await from('198.51.100.9', unknown).expect(401);
    expect(refused.headers['content-type']).toMatch(
      /^application\/vnd\.api\+json/,
    );
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.body.errors[0]).toMatchObject({
      status: '401',
      title: 'Unauthorized',
      code: 'too_many_failed_authentications',
    });
    const again = await from('198.51.100.9').expect(401);
    expect(again.body.errors[0].code).toBe('too_many_failed_authentications');
    // Another address has its own count.
    const other = await from('198.51.100.10', unknown).expect(401);
    expect(other.headers['retry-after']).toBeUndefined();
    // A valid key is still served from the limited address: keys are too
    // long to guess, and one broken client behind a shared address must not
    // lock out the others (README, "Failed authentication").
    const served = await from('198.51.100.9', `Bearer ${fresh.testKey}`).expect(
      200,
    );
    expect(served.headers['x-ratelimit-limit']).toBe('5');
    const still = await from('198.51.100.9', unknown).expect(401);
    expect(still.body.errors[0].code).toBe('too_many_failed_authentications');
  });

  it('leaves health endpoints unlimited', async () => {
    for (let i = 0; i < 8; i++) {
      const response = await request(t.baseUrl).get('/health/live').expect(200);
      expect(response.headers['x-ratelimit-limit']).toBeUndefined();
    }
  });
});
