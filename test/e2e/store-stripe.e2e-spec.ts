import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Client } from 'pg';
import request from 'supertest';
import { createMerchant, Merchant, updateStore } from '../support/factories';
import { StripeCredentialsService } from '../../src/modules/payment/stripe-credentials.service';
import { startTestApp, TEST_APP_KEY, TestApp } from '../support/test-app';

// Shaped like Stripe's keys; made up.
const TEST_KEYS = {
  secret_key: 'sk_test_51AbCdEfGhIjKlMnOpQrStUvWx',
  publishable_key: 'pk_test_51AbCdEfGhIjKlMnOpQrStUvWx',
  webhook_secret: 'whsec_0123456789abcdefABCDEF0123456789',
};
const LIVE_KEYS = {
  secret_key: 'sk_live_51ZyXwVuTsRqPoNmLkJiHgFeDc',
  publishable_key: 'pk_live_51ZyXwVuTsRqPoNmLkJiHgFeDc',
  webhook_secret: 'whsec_9876543210zyxwvuZYXWVU9876543210',
};
const SECRET_PARTS = [
  '51AbCdEfGhIjKlMnOpQrStUvWx',
  '51ZyXwVuTsRqPoNmLkJiHgFeDc',
  '0123456789abcdefABCDEF0123456789',
  '9876543210zyxwvuZYXWVU9876543210',
];

/** Issue 25 item 1: each store's own Stripe account, per mode, sealed at rest. */
describe('store Stripe credentials', () => {
  let t: TestApp;
  let merchant: Merchant;
  let other: Merchant;
  let storeId: number;
  let db: Client;

  beforeAll(async () => {
    t = await startTestApp();
    merchant = await createMerchant(t.app, ['Stripe Store']);
    other = await createMerchant(t.app);
    storeId = merchant.stores[0].id;
    db = new Client({ connectionString: t.database.url });
    await db.connect();
  });
  afterAll(async () => {
    await db.end();
    await t.close();
  });

  const patch = (
    attributes: Record<string, unknown>,
    key = merchant.testKey,
    id = storeId,
  ) => updateStore(t.baseUrl, key, id, attributes);
  const get = (key = merchant.testKey) =>
    request(t.baseUrl)
      .get(`/v1/stores/${storeId}`)
      .set('Authorization', `Bearer ${key}`);
  const table = async () =>
    (
      await db.query<{ text: string | null }>(
        `SELECT string_agg(c::text, '') AS text FROM stripe_credentials c`,
      )
    ).rows[0].text ?? '';
  const rows = async () =>
    Number(
      (await db.query(`SELECT count(*) AS n FROM stripe_credentials`)).rows[0]
        .n,
    );

  it('connects the test-mode account over the API, shows only that it is configured, and seals every key', async () => {
    const before = await get().expect(200);
    expect(before.body.data.attributes.stripe).toEqual({
      mode: 'test',
      configured: false,
    });
    const response = await patch({ stripe: TEST_KEYS }).expect(200);
    expect(response.body.data.attributes.stripe).toEqual({
      mode: 'test',
      configured: true,
    });
    for (const part of SECRET_PARTS) expect(response.text).not.toContain(part);
    expect((await get().expect(200)).body.data.attributes.stripe).toEqual({
      mode: 'test',
      configured: true,
    });
    // The live mode has its own account, not connected yet.
    expect(
      (await get(merchant.liveKey).expect(200)).body.data.attributes.stripe,
    ).toEqual({ mode: 'live', configured: false });
    // What a database dump would show: no key, no prefix, in clear.
    const stored = await table();
    expect(stored).toMatch(/v1\./);
    for (const clear of [...SECRET_PARTS, 'sk_test_', 'pk_test_', 'whsec_'])
      expect(stored).not.toContain(clear);
    // Only the server, with APP_KEY, reads them back (for calling Stripe).
    expect(
      await t.app.get(StripeCredentialsService).keysOf(storeId, true),
    ).toEqual({
      secretKey: TEST_KEYS.secret_key,
      publishableKey: TEST_KEYS.publishable_key,
      webhookSecret: TEST_KEYS.webhook_secret,
    });
  });

  it('refuses keys of the other mode and malformed keys with 422 and a code, changing nothing', async () => {
    const stored = await table();
    const wrongMode = await patch({
      name: 'Renamed',
      stripe: { ...TEST_KEYS, secret_key: LIVE_KEYS.secret_key },
    }).expect(422);
    expect(wrongMode.body.errors).toEqual([
      expect.objectContaining({
        code: 'stripe_key_wrong_mode',
        source: { pointer: '/data/attributes/stripe/secret_key' },
      }),
    ]);
    expect(wrongMode.text).not.toContain(SECRET_PARTS[1]);
    const liveWithTest = await patch(
      { stripe: TEST_KEYS },
      merchant.liveKey,
    ).expect(422);
    expect(
      liveWithTest.body.errors.map((e: { code: string }) => e.code),
    ).toEqual(['stripe_key_wrong_mode', 'stripe_key_wrong_mode']);
    const malformed = await patch({ stripe: {} }).expect(422);
    expect(
      malformed.body.errors.map(
        (e: { code: string; source: { pointer: string } }) => [
          e.code,
          e.source.pointer,
        ],
      ),
    ).toEqual([
      ['stripe_credentials_invalid', '/data/attributes/stripe/secret_key'],
      ['stripe_credentials_invalid', '/data/attributes/stripe/publishable_key'],
      ['stripe_credentials_invalid', '/data/attributes/stripe/webhook_secret'],
    ]);
    // A publishable key is not a secret key.
    const swapped = await patch({
      stripe: { ...TEST_KEYS, secret_key: TEST_KEYS.publishable_key },
    }).expect(422);
    expect(swapped.body.errors[0].code).toBe('stripe_credentials_invalid');
    await patch({ stripe: 'sk_test_x' }).expect((response) =>
      expect([400, 422]).toContain(response.status),
    );
    await patch({ stripe: TEST_KEYS }, other.testKey).expect(404);
    expect(await table()).toBe(stored);
    expect((await get().expect(200)).body.data.attributes.name).not.toBe(
      'Renamed',
    );
  });

  it('keeps live and test accounts apart, and disconnects one with null', async () => {
    await patch({ stripe: LIVE_KEYS }, merchant.liveKey).expect(200);
    expect(await rows()).toBe(2);
    const service = t.app.get(StripeCredentialsService);
    expect((await service.keysOf(storeId, false))?.secretKey).toBe(
      LIVE_KEYS.secret_key,
    );
    const cleared = await patch({ stripe: null }, merchant.liveKey).expect(200);
    expect(cleared.body.data.attributes.stripe).toEqual({
      mode: 'live',
      configured: false,
    });
    expect(await service.keysOf(storeId, false)).toBeNull();
    expect((await service.keysOf(storeId, true))?.secretKey).toBe(
      TEST_KEYS.secret_key,
    );
  });

  const cliIt = process.env.DATABASE_URL ? it : it.skip;
  cliIt('connects and disconnects over the CLI, printing no key', async () => {
    const cli = (args: string[]) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>(
        (resolve) => {
          const child = spawn(
            process.execPath,
            [join(process.cwd(), 'dist', 'cli.js'), ...args, '--json'],
            {
              env: {
                PATH: process.env.PATH ?? '',
                DATABASE_URL: t.database.url!,
                APP_KEY: TEST_APP_KEY,
                DATA_DIR: t.config.database.dataDir,
                NODE_ENV: 'test',
              },
            },
          );
          let stdout = '';
          let stderr = '';
          child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
          child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
          child.once('close', (code) => resolve({ code, stdout, stderr }));
        },
      );
    const keys = [
      '--secret-key',
      LIVE_KEYS.secret_key,
      '--publishable-key',
      LIVE_KEYS.publishable_key,
      '--webhook-secret',
      LIVE_KEYS.webhook_secret,
    ];
    const wrong = await cli([
      'stores:payments',
      '--store',
      String(storeId),
      '--mode',
      'test',
      ...keys,
    ]);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stdout + wrong.stderr).toContain('not a test-mode key');
    const set = await cli([
      'stores:payments',
      '--store',
      String(storeId),
      '--mode',
      'live',
      ...keys,
    ]);
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({
      store_id: storeId,
      mode: 'live',
      configured: true,
    });
    for (const part of SECRET_PARTS)
      expect(set.stdout + set.stderr).not.toContain(part);
    expect(
      (await get(merchant.liveKey).expect(200)).body.data.attributes.stripe,
    ).toEqual({ mode: 'live', configured: true });
    const off = await cli([
      'stores:payments',
      '--store',
      String(storeId),
      '--mode',
      'live',
      '--disconnect',
    ]);
    expect(off.code).toBe(0);
    expect(
      (await get(merchant.liveKey).expect(200)).body.data.attributes.stripe,
    ).toEqual({ mode: 'live', configured: false });
  });
});
