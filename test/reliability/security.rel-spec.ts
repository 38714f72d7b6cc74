import { execFileSync } from 'node:child_process';
import { pathOf } from '../support/commerce';
import { createPricedProduct, postResource } from '../support/factories';
import { runCli } from '../support/processes';
import { client, JsonResponse } from './support/api';
import { Cluster, haveServices, startCluster } from './support/cluster';
import { closeAgent, rawRequest } from './support/http';
import { report } from './support/runs';

const describeWithServices = haveServices ? describe : describe.skip;

/** The stored display prefix (`zest_test_` + 4 characters) is public by design. */
const DISPLAY_PREFIX = 14;
const WINDOW = 12;

/** Every 12-character piece of a key that reaches past its display prefix. */
function secretWindows(key: string): string[] {
  const windows: string[] = [];
  for (let i = 0; i + WINDOW <= key.length; i++)
    if (i + WINDOW > DISPLAY_PREFIX) windows.push(key.slice(i, i + WINDOW));
  return windows;
}

function hits(haystack: string, needles: string[]): string[] {
  return needles.filter((needle) => haystack.includes(needle));
}

/**
 * Secrets stay secret across the real processes: an API (debug logs) and a
 * worker over PostgreSQL and Redis, keys made by the CLI as an operator would.
 */
describeWithServices('security', () => {
  let cluster: Cluster;
  const responses: string[] = [];
  const webhookSecret = `whsec-${'s3cr3t'.repeat(4)}`;

  const keep = (response: JsonResponse) => {
    responses.push(
      JSON.stringify(response.headers) + JSON.stringify(response.body),
    );
    return response;
  };

  beforeAll(async () => {
    cluster = await startCluster({
      apis: 1,
      workers: 1,
      keys: ['main', 'revoked', 'expired', 'spare1', 'spare2'],
      env: {
        LOG_LEVEL: 'debug',
        API_KEY_CACHE_TTL_MS: '2000',
        WEBHOOK_ALLOW_PRIVATE: 'true',
        RATE_LIMIT_PER_MINUTE: '100000',
        AUTH_FAILURE_LIMIT_PER_MINUTE: '100000',
      },
    });
  }, 180_000);

  afterAll(async () => {
    closeAgent();
    await cluster?.close();
  }, 60_000);

  it('revoked and expired keys are refused within the key cache TTL (2 s)', async () => {
    const api = cluster.apis[0];
    for (const name of ['revoked', 'expired']) {
      const res = keep(
        await client(api.url, cluster.keys[name].key).get('/v1/users/me'),
      );
      expect(res.status).toBe(200);
    }
    await runCli(cluster.env, [
      'api-keys:revoke',
      '--id',
      String(cluster.keys.revoked.id),
    ]);
    await cluster.db.query(
      `UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`,
      [cluster.keys.expired.id],
    );
    const started = Date.now();
    const refusedWithin: number[] = [];
    for (const name of ['revoked', 'expired']) {
      for (;;) {
        const res = keep(
          await client(api.url, cluster.keys[name].key).get('/v1/users/me'),
        );
        if (res.status === 401) {
          refusedWithin.push(Date.now() - started);
          expect(res.body.errors[0].detail).toMatch(
            name === 'revoked' ? /revoked/ : /expired/,
          );
          break;
        }
        expect(res.status).toBe(200);
        expect(Date.now() - started).toBeLessThan(2_000 + 500);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    // Refused on every later request too, on every route.
    for (const name of ['revoked', 'expired'])
      for (const path of ['/v1/stores', '/v1/orders', '/v1/webhooks'])
        expect(
          keep(await client(api.url, cluster.keys[name].key).get(path)).status,
        ).toBe(401);
    report(
      'security: revocation',
      `revoked key refused within ${refusedWithin[0]} ms of the CLI revoking it, expired key within ${refusedWithin[1]} ms (key cache TTL 2000 ms)`,
    );
  }, 60_000);

  it('signed links refuse tampering and expiry', async () => {
    const api = cluster.apis[0];
    const key = cluster.keys.main.key;
    const { product, variantId } = await createPricedProduct(
      api.url,
      key,
      cluster.storeId,
    );
    const buyNow = pathOf(
      keep(await client(api.url, key).get(`/v1/products/${product.id}`)).body
        .data.attributes.buy_now_url,
    );
    const order = keep(
      await client(api.url).post(buyNow, {
        email: 'signed@example.com',
        name: 'Signed Buyer',
        billing_address: { country: 'US', zip: '10001' },
        card_number: '4242424242424242',
      }),
    );
    expect(order.status).toBe(201);
    const receipt = pathOf(order.body.data.attributes.urls.receipt);
    const invoice = keep(
      await client(api.url, key).post(
        `/v1/orders/${order.body.data.id}/generate-invoice?name=Ada`,
      ),
    );
    const download = pathOf(invoice.body.meta.urls.download_invoice);
    const expiring = keep(
      await client(api.url, key).post('/v1/checkouts', {
        data: {
          type: 'checkouts',
          attributes: {
            expires_at: new Date(Date.now() + 2_000).toISOString(),
          },
          relationships: {
            store: { data: { type: 'stores', id: String(cluster.storeId) } },
            variant: { data: { type: 'variants', id: variantId } },
          },
        },
      }),
    );
    expect(expiring.status).toBe(201);
    const checkout = pathOf(expiring.body.data.attributes.url);

    const get = (path: string) => rawRequest(api.url, 'GET', path, {});
    const tamperings = (link: string): string[] => {
      const [path, query] = link.split('?');
      const params = new URLSearchParams(query);
      const signature = params.get('signature') as string;
      const flipped = new URLSearchParams(params);
      flipped.set(
        'signature',
        (signature[0] === 'a' ? 'b' : 'a') + signature.slice(1),
      );
      const unsigned = new URLSearchParams(params);
      unsigned.delete('signature');
      const extra = new URLSearchParams(params);
      extra.set('name', 'Mallory');
      const later = new URLSearchParams(params);
      if (later.has('expires'))
        later.set('expires', String(Number(later.get('expires')) + 86_400));
      else later.set('expires', String(Math.floor(Date.now() / 1000) + 86_400));
      const otherId = path.replace(/[0-9a-f]$/, (c) => (c === '0' ? '1' : '0'));
      return [
        `${path}?${flipped}`,
        `${path}?${unsigned}`,
        `${path}?${extra}`,
        `${path}?${later}`,
        `${otherId}?${params}`,
        `${path}?${params}&signature=${signature}`,
        path,
      ];
    };
    let refused = 0;
    for (const link of [receipt, download, checkout]) {
      expect([200, 202]).toContain((await get(link)).status);
      for (const tampered of tamperings(link)) {
        const res = await get(tampered);
        if (![400, 403, 404].includes(res.status))
          throw new Error(`${tampered} answered ${res.status}`);
        refused++;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const expired = await get(checkout);
    expect(expired.status).toBe(403);
    expect(expired.text).toMatch(/expired/i);
    report(
      'security: signed links',
      `${refused}/${refused} tampered receipt, invoice and checkout links refused; an expired checkout link refused (403)`,
    );
  }, 60_000);

  it('the webhook secret never appears in a response', async () => {
    const api = client(cluster.apis[0].url, cluster.keys.main.key);
    const created = await postResource(
      cluster.apis[0].url,
      cluster.keys.main.key,
      'webhooks',
      {
        url: 'http://127.0.0.1:9/hook',
        events: ['order_created'],
        secret: webhookSecret,
      },
      { store: { type: 'stores', id: cluster.storeId } },
    );
    responses.push(JSON.stringify(created));
    keep(await api.get(`/v1/webhooks/${created.id}`));
    keep(await api.get('/v1/webhooks'));
    keep(await api.get(`/v1/webhooks?include=store`));
    keep(await api.get(`/v1/stores/${cluster.storeId}/webhooks`));
    keep(await api.get(`/v1/webhooks/${created.id}/deliveries`));
    keep(
      await api.patch(`/v1/webhooks/${created.id}`, {
        data: {
          type: 'webhooks',
          id: created.id,
          attributes: { secret: `${webhookSecret}-rotated` },
        },
      }),
    );
    keep(await api.get(`/v1/webhooks/${created.id}`));
    expect(hits(responses.join('\n'), [webhookSecret])).toEqual([]);
  });

  it('a License API caller reads nothing of the main API', async () => {
    const api = cluster.apis[0].url;
    const { rows } = await cluster.db.query<{ key: string }>(
      `SELECT key FROM license_keys LIMIT 1`,
    );
    const probes = [
      '/v1/users/me',
      '/v1/stores',
      '/v1/orders',
      '/v1/customers',
      '/v1/license-keys',
      '/v1/webhooks',
      '/v1/subscriptions',
    ];
    const credentials = [
      undefined,
      ...rows.map((row) => `Bearer ${row.key}`),
      'Bearer zest_test_' + 'A'.repeat(43),
    ];
    let refused = 0;
    for (const authorization of credentials)
      for (const path of probes) {
        const res = await rawRequest(
          api,
          'GET',
          path,
          authorization ? { authorization } : {},
        );
        expect(res.status).toBe(401);
        refused++;
      }
    // The License API answers only about the key it is given, and only by POST.
    for (const path of ['/v1/licenses/validate', '/v1/licenses/activate']) {
      const res = await rawRequest(api, 'GET', path, {});
      expect(res.status).toBe(405);
    }
    const unknown = await rawRequest(
      api,
      'POST',
      '/v1/licenses/validate',
      { 'content-type': 'application/json' },
      JSON.stringify({ license_key: '00000000-0000-4000-8000-000000000000' }),
    );
    expect(unknown.status).toBe(404);
    expect(Object.keys(JSON.parse(unknown.text)).sort()).toEqual([
      'error',
      'valid',
    ]);
    report(
      'security: License API isolation',
      `${refused}/${refused} main-API reads without an API key refused (401)`,
    );
  });

  it('no API key appears in a pg_dump of the database, the logs or any response after creation', async () => {
    // Use every key on a few routes, with mistakes too, so the logs have something to show.
    const api = cluster.apis[0].url;
    for (const { key } of Object.values(cluster.keys)) {
      for (const path of [
        '/v1/users/me',
        '/v1/stores?page[size]=1',
        '/v1/nope',
      ]) {
        responses.push(
          (
            await rawRequest(api, 'GET', path, {
              authorization: `Bearer ${key}`,
            })
          ).text,
        );
      }
      responses.push(
        (
          await rawRequest(api, 'GET', '/v1/stores', {
            authorization: `Bearer ${key.slice(0, -2)}xx`,
          })
        ).text,
      );
      responses.push(
        (
          await rawRequest(api, 'GET', '/v1/stores', {
            authorization: `Basic ${key}`,
          })
        ).text,
      );
      // Keys where clients misplace them: the query string (the access
      // log keeps URLs), a body, and headers nobody reads.
      for (const query of [
        `api_key=${key}`,
        `key=${key}`,
        `token=${key}`,
        `access_token=${key}`,
        `sort=${key}`,
        `filter[store_id]=${key}`,
        key,
      ]) {
        responses.push(
          (await rawRequest(api, 'GET', `/v1/stores?${query}`, {})).text,
        );
      }
      responses.push(
        (
          await rawRequest(
            api,
            'POST',
            `/v1/customers?api_key=${key}`,
            { 'content-type': 'application/vnd.api+json' },
            JSON.stringify({
              api_key: key,
              data: { type: 'customers', attributes: { name: key } },
            }),
          )
        ).text,
      );
      responses.push(
        (
          await rawRequest(api, 'GET', '/v1/stores', {
            'x-api-key': key,
            'api-key': key,
            authorization: `Token ${key}`,
          })
        ).text,
      );
    }
    const keys = Object.values(cluster.keys).map((k) => k.key);
    const windows = keys.flatMap(secretWindows);
    const dump = execFileSync('pg_dump', ['--no-owner', cluster.databaseUrl], {
      maxBuffer: 256 * 1024 * 1024,
    }).toString('utf8');
    const logs = [...cluster.apis.map((a) => a.process), ...cluster.workers]
      .map((p) => p.output())
      .join('\n');
    expect(logs.length).toBeGreaterThan(0);
    expect(hits(dump, windows)).toEqual([]);
    expect(hits(logs, windows)).toEqual([]);
    expect(hits(responses.join('\n'), windows)).toEqual([]);
    expect(hits(logs, [webhookSecret])).toEqual([]);
    report(
      'security: API keys at rest',
      `${keys.length} keys × ${windows.length / keys.length} 12-character windows: 0 hits in a ${Math.round(dump.length / 1024)} KiB pg_dump, ${Math.round(logs.length / 1024)} KiB of debug logs and ${responses.length} responses; the webhook secret in none of them`,
    );
  }, 60_000);
});
