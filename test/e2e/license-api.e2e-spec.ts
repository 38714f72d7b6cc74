import request from 'supertest';
import {
  activateLicense,
  deactivateLicense,
  validateLicense,
} from '@lemonsqueezy/lemonsqueezy.js';
import { createMerchant, Merchant } from '../support/factories';
import { issueLicenseKeys, LivePaymentsTestModule } from '../support/licensing';
import { useSdkAgainst } from '../support/sdk';
import { startTestApp, TestApp } from '../support/test-app';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

type Body = Record<string, unknown>;

describe('License API', () => {
  let t: TestApp;
  let merchant: Merchant;
  let restoreFetch: () => void;

  beforeAll(async () => {
    // The parallel-activation tests send far more than 60 requests a minute from one IP.
    t = await startTestApp(
      { LICENSE_RATE_LIMIT_PER_MINUTE: '100000' },
      { modules: [LivePaymentsTestModule] },
    );
    merchant = await createMerchant(t.app, ['License Store']);
    // The JS SDK sends no Authorization header on License API calls.
    restoreFetch = useSdkAgainst(t.baseUrl, merchant.testKey);
  });
  afterAll(async () => {
    restoreFetch();
    await t.close();
  });

  const store = () => merchant.stores[0];
  const issue = async (options = {}) =>
    (await issueLicenseKeys(t, merchant, store(), options))[0];

  const post = (operation: string) =>
    request(t.baseUrl).post(`/v1/licenses/${operation}`);
  const postJson = (operation: string, body: Body) =>
    post(operation)
      .set('Accept', 'application/json')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify(body));
  const postForm = (operation: string, fields: Record<string, string>) =>
    post(operation).set('Accept', 'application/json').type('form').send(fields);
  const patchKey = (id: number, attributes: Body) =>
    request(t.baseUrl)
      .patch(`/v1/license-keys/${id}`)
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .set('Content-Type', 'application/vnd.api+json')
      .send(
        JSON.stringify({
          data: { type: 'license-keys', id: String(id), attributes },
        }),
      )
      .expect(200);

  it('activates, validates and deactivates through the official SDK', async () => {
    const key = await issue({ activationLimit: 2 });

    const activated = await activateLicense(key.key, 'Laptop');
    expect(activated.statusCode).toBe(200);
    const body = activated.data as unknown as Body;
    expect(Object.keys(body)).toEqual([
      'activated',
      'error',
      'license_key',
      'instance',
      'meta',
    ]);
    expect(body.activated).toBe(true);
    expect(body.error).toBeNull();
    const licenseKey = body.license_key as Body;
    expect(Object.keys(licenseKey)).toEqual([
      'id',
      'status',
      'key',
      'activation_limit',
      'activation_usage',
      'created_at',
      'expires_at',
      'test_mode',
    ]);
    expect(licenseKey).toMatchObject({
      id: key.id,
      status: 'active',
      key: key.key,
      activation_limit: 2,
      activation_usage: 1,
      expires_at: null,
      test_mode: true,
    });
    expect(licenseKey.created_at).toMatch(TIMESTAMP);
    const instance = body.instance as Body;
    expect(Object.keys(instance)).toEqual(['id', 'name', 'created_at']);
    expect(instance.id).toMatch(UUID);
    expect(instance.name).toBe('Laptop');
    expect(body.meta).toEqual({
      store_id: store().id,
      order_id: key.orderId,
      order_item_id: key.orderItemId,
      product_id: key.productId,
      product_name: 'Desktop App',
      variant_id: key.variantId,
      variant_name: 'Pro',
      customer_id: key.customerId,
      customer_name: 'Ada Buyer',
      customer_email: key.userEmail,
    });

    const validKey = await validateLicense(key.key);
    expect(validKey.statusCode).toBe(200);
    expect(validKey.data).toMatchObject({
      valid: true,
      error: null,
      instance: null,
      license_key: { activation_usage: 1, status: 'active' },
    });
    expect(Object.keys(validKey.data as object)).toEqual([
      'valid',
      'error',
      'license_key',
      'instance',
      'meta',
    ]);

    const validInstance = await validateLicense(key.key, String(instance.id));
    expect(validInstance.statusCode).toBe(200);
    expect((validInstance.data as unknown as Body).instance).toEqual(instance);

    const deactivated = await deactivateLicense(key.key, String(instance.id));
    expect(deactivated.statusCode).toBe(200);
    expect(Object.keys(deactivated.data as object)).toEqual([
      'deactivated',
      'error',
      'license_key',
      'meta',
    ]);
    expect(deactivated.data).toMatchObject({
      deactivated: true,
      error: null,
      license_key: { activation_usage: 0, status: 'inactive' },
    });

    // The instance is gone: validating or deactivating it again finds nothing.
    const again = await deactivateLicense(key.key, String(instance.id));
    expect(again.statusCode).toBe(404);
    expect(again.data).toMatchObject({
      deactivated: false,
      error: 'instance_id not found',
    });
  });

  it('accepts form fields, application/json and application/vnd.api+json alike, ignoring Authorization', async () => {
    const key = await issue({ activationLimit: null });
    const form = await postForm('activate', {
      license_key: key.key,
      instance_name: 'Form machine',
    })
      .set('Authorization', 'Bearer not-a-real-key')
      .expect(200);
    expect(form.headers['content-type']).toMatch(/^application\/json/);
    expect(form.body).toMatchObject({
      activated: true,
      license_key: { activation_limit: null, activation_usage: 1 },
      instance: { name: 'Form machine' },
    });
    const instanceId = form.body.instance.id as string;

    const json = await postJson('validate', {
      license_key: key.key,
      instance_id: instanceId,
    }).expect(200);
    expect(json.body).toMatchObject({
      valid: true,
      instance: { id: instanceId },
    });

    const vnd = await post('validate')
      .set('Content-Type', 'application/vnd.api+json')
      .set('Authorization', `Bearer ${merchant.liveKey}`)
      .send(JSON.stringify({ license_key: key.key }))
      .expect(200);
    expect(vnd.body).toMatchObject({ valid: true, instance: null });

    const deactivated = await postForm('deactivate', {
      license_key: key.key,
      instance_id: instanceId,
    }).expect(200);
    expect(deactivated.body).toMatchObject({
      deactivated: true,
      license_key: { activation_usage: 0 },
    });
  });

  it('answers 404 "license_key not found" for an unknown key on every operation', async () => {
    const cases: [string, Record<string, string>, string][] = [
      ['activate', { license_key: 'nope', instance_name: 'x' }, 'activated'],
      ['validate', { license_key: 'nope' }, 'valid'],
      [
        'deactivate',
        {
          license_key: '00000000-0000-4000-8000-000000000000',
          instance_id: '00000000-0000-4000-8000-000000000000',
        },
        'deactivated',
      ],
    ];
    for (const [operation, fields, flag] of cases) {
      const form = await postForm(operation, fields).expect(404);
      expect(form.body).toEqual({
        [flag]: false,
        error: 'license_key not found',
      });
      const json = await postJson(operation, fields).expect(404);
      expect(json.body).toEqual(form.body);
    }
    const sdk = await validateLicense('unknown-key');
    expect(sdk.statusCode).toBe(404);
    expect(sdk.data).toEqual({ valid: false, error: 'license_key not found' });
  });

  it('refuses an activation past the limit with 400 and no instance key', async () => {
    const key = await issue({ activationLimit: 1 });
    await postForm('activate', {
      license_key: key.key,
      instance_name: 'A',
    }).expect(200);
    const refused = await activateLicense(key.key, 'B');
    expect(refused.statusCode).toBe(400);
    const body = refused.data as unknown as Body;
    expect(body.activated).toBe(false);
    expect(body.error).toBe(
      'This license key has reached the activation limit.',
    );
    expect('instance' in body).toBe(false);
    expect(Object.keys(body)).toEqual([
      'activated',
      'error',
      'license_key',
      'meta',
    ]);
    expect(body.license_key).toMatchObject({
      activation_limit: 1,
      activation_usage: 1,
    });
    expect((refused.error as Error & { cause: unknown }).cause).toBe(
      'This license key has reached the activation limit.',
    );
  });

  it('never validates or activates a disabled or expired key', async () => {
    const [disabled, expired, future] = await Promise.all([
      issue(),
      issue(),
      issue({ length: { value: 1, unit: 'days' } }),
    ]);
    const active = await postForm('activate', {
      license_key: disabled.key,
      instance_name: 'Before',
    }).expect(200);
    const instanceId = active.body.instance.id as string;
    await patchKey(disabled.id, { disabled: true });

    const activate = await postForm('activate', {
      license_key: disabled.key,
      instance_name: 'After',
    }).expect(400);
    expect(activate.body).toMatchObject({
      activated: false,
      error: 'license_key is disabled.',
      license_key: { status: 'disabled' },
    });
    expect('instance' in activate.body).toBe(false);
    const validations: Record<string, string>[] = [
      { license_key: disabled.key },
      { license_key: disabled.key, instance_id: instanceId },
    ];
    for (const fields of validations) {
      const validate = await postForm('validate', fields).expect(400);
      expect(validate.body).toMatchObject({
        valid: false,
        error: 'license_key is disabled.',
        instance: null,
        license_key: { status: 'disabled' },
      });
      expect(Object.keys(validate.body.meta)).toHaveLength(10);
    }
    const deactivate = await postForm('deactivate', {
      license_key: disabled.key,
      instance_id: instanceId,
    }).expect(400);
    expect(deactivate.body).toMatchObject({
      deactivated: false,
      error: 'license_key is disabled.',
    });

    await patchKey(expired.id, { expires_at: '2020-01-01T00:00:00.000000Z' });
    const validate = await validateLicense(expired.key);
    expect(validate.statusCode).toBe(400);
    expect(validate.data).toMatchObject({
      valid: false,
      error: 'license_key is expired.',
      instance: null,
      license_key: {
        status: 'expired',
        expires_at: '2020-01-01T00:00:00.000000Z',
      },
    });
    const activateExpired = await activateLicense(expired.key, 'Late');
    expect(activateExpired.statusCode).toBe(400);
    expect(activateExpired.data).toMatchObject({
      activated: false,
      error: 'license_key is expired.',
    });

    // A key that expires in the future is valid until then.
    const validFuture = await postForm('validate', {
      license_key: future.key,
    }).expect(200);
    expect(validFuture.body.license_key.expires_at).toMatch(TIMESTAMP);
  });

  it('answers 404 "instance_id not found" for an instance of another key or no instance', async () => {
    const [first, second] = await Promise.all([issue(), issue()]);
    const other = await postForm('activate', {
      license_key: second.key,
      instance_name: 'Other',
    }).expect(200);
    for (const instanceId of [
      other.body.instance.id as string,
      'not-a-uuid',
      '00000000-0000-4000-8000-000000000000',
    ]) {
      const validate = await postForm('validate', {
        license_key: first.key,
        instance_id: instanceId,
      }).expect(404);
      expect(validate.body).toMatchObject({
        valid: false,
        error: 'instance_id not found',
        instance: null,
        license_key: { id: first.id },
      });
      const deactivate = await postJson('deactivate', {
        license_key: first.key,
        instance_id: instanceId,
      }).expect(404);
      expect(deactivate.body).toMatchObject({
        deactivated: false,
        error: 'instance_id not found',
      });
    }
  });

  it('answers 422 with a plain error for missing or invalid fields', async () => {
    const key = await issue();
    const cases: [string, Body, string, string][] = [
      [
        'activate',
        { license_key: key.key },
        'activated',
        'The instance name field is required.',
      ],
      [
        'activate',
        { instance_name: 'x' },
        'activated',
        'The license key field is required.',
      ],
      ['validate', {}, 'valid', 'The license key field is required.'],
      [
        'validate',
        { license_key: 42 },
        'valid',
        'The license key must be a string.',
      ],
      [
        'deactivate',
        { license_key: key.key },
        'deactivated',
        'The instance id field is required.',
      ],
      [
        'activate',
        { license_key: key.key, instance_name: 'x'.repeat(256) },
        'activated',
        'The instance name may not be greater than 255 characters.',
      ],
    ];
    for (const [operation, body, flag, error] of cases) {
      const response = await postJson(operation, body).expect(422);
      expect(response.body).toEqual({ [flag]: false, error });
    }
    const noBody = await post('validate').expect(422);
    expect(noBody.body).toEqual({
      valid: false,
      error: 'The license key field is required.',
    });
  });

  it('answers malformed bodies and wrong methods in plain JSON, not JSON:API', async () => {
    const malformed = await post('activate')
      .set('Content-Type', 'application/json')
      .send('{"license_key": ')
      .expect(400);
    expect(malformed.headers['content-type']).toMatch(/^application\/json/);
    expect(malformed.body.activated).toBe(false);
    expect(typeof malformed.body.error).toBe('string');
    expect(malformed.body.errors).toBeUndefined();
    expect(malformed.body.jsonapi).toBeUndefined();

    const wrongMethod = await request(t.baseUrl)
      .get('/v1/licenses/validate')
      .expect(405);
    expect(wrongMethod.body.valid).toBe(false);
    expect(wrongMethod.body.errors).toBeUndefined();
    expect(wrongMethod.headers.allow).toBe('POST');
  });

  it('works for keys of either mode', async () => {
    const live = await issue({ testMode: false });
    const response = await activateLicense(live.key, 'Live box');
    expect(response.statusCode).toBe(200);
    expect(response.data).toMatchObject({
      license_key: { test_mode: false },
    });
  });

  it('never exceeds the activation limit under 100 parallel activations', async () => {
    const key = await issue({ activationLimit: 3 });
    const responses = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        postForm('activate', {
          license_key: key.key,
          instance_name: `Machine ${i}`,
        }),
      ),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    expect(statuses.filter((s) => s === 400)).toHaveLength(97);
    for (const refused of responses.filter((r) => r.status === 400)) {
      expect(refused.body.error).toBe(
        'This license key has reached the activation limit.',
      );
    }
    const validated = await postForm('validate', {
      license_key: key.key,
    }).expect(200);
    expect(validated.body.license_key.activation_usage).toBe(3);
    const instances = await request(t.baseUrl)
      .get(`/v1/license-key-instances?filter[license_key_id]=${key.id}`)
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .expect(200);
    expect(instances.body.meta.page.total).toBe(3);
  });

  it('keeps activation_usage equal to the instances under interleaved deactivations', async () => {
    const key = await issue({ activationLimit: 3 });
    const first = await Promise.all(
      [1, 2, 3].map((i) =>
        postForm('activate', {
          license_key: key.key,
          instance_name: `M${i}`,
        }).expect(200),
      ),
    );
    const ids = first.map((r) => r.body.instance.id as string);
    const work = [
      ...Array.from({ length: 40 }, (_, i) =>
        postForm('activate', { license_key: key.key, instance_name: `N${i}` }),
      ),
      ...ids.map((id) =>
        postForm('deactivate', { license_key: key.key, instance_id: id }),
      ),
    ];
    const responses = await Promise.all(work);
    expect(responses.every((r) => r.status < 500)).toBe(true);
    const deactivations = responses.slice(40);
    expect(deactivations.every((r) => r.status === 200)).toBe(true);
    const activations = responses.slice(0, 40).filter((r) => r.status === 200);
    // Three seats were freed, so at most three new activations could succeed.
    expect(activations.length).toBeLessThanOrEqual(3);
    const validated = await postForm('validate', {
      license_key: key.key,
    }).expect(200);
    const instances = await request(t.baseUrl)
      .get(`/v1/license-key-instances?filter[license_key_id]=${key.id}`)
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .expect(200);
    expect(validated.body.license_key.activation_usage).toBe(
      instances.body.meta.page.total,
    );
    expect(instances.body.meta.page.total).toBe(activations.length);
    expect(instances.body.meta.page.total).toBeLessThanOrEqual(3);
  });
});

describe('License API rate limit', () => {
  let t: TestApp;
  let merchant: Merchant;

  beforeAll(async () => {
    t = await startTestApp({ LICENSE_RATE_LIMIT_PER_MINUTE: '3' });
    merchant = await createMerchant(t.app, ['Limited Store']);
  });
  afterAll(() => t.close());

  it('limits each client IP per minute, answering 429 in plain JSON with Retry-After', async () => {
    const [key] = await issueLicenseKeys(t, merchant, merchant.stores[0]);
    const validate = () =>
      request(t.baseUrl)
        .post('/v1/licenses/validate')
        .type('form')
        .send({ license_key: key.key });
    for (let i = 0; i < 3; i++) {
      const ok = await validate().expect(200);
      expect(ok.headers['x-ratelimit-limit']).toBe('3');
      expect(ok.headers['x-ratelimit-remaining']).toBe(String(2 - i));
    }
    const limited = await validate().expect(429);
    expect(limited.headers['content-type']).toMatch(/^application\/json/);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.body.valid).toBe(false);
    expect(limited.body.error).toMatch(/Rate limit/);
    expect(limited.body.errors).toBeUndefined();
    // An API key does not lift the per-IP limit, and the main API is unaffected.
    await validate()
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .expect(429);
    await request(t.baseUrl)
      .get('/v1/license-keys')
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .expect(200);
  });
});
