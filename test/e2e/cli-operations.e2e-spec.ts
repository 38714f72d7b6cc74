import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { buy, buyNowUrl } from '../support/commerce';
import {
  spawnZest,
  terminate,
  waitForReady,
  ZestProcess,
} from '../support/processes';
import {
  createTestDatabase,
  freePort,
  TEST_APP_KEY,
} from '../support/test-app';
import { startWebhookReceiver, WebhookReceiver } from '../support/worker';

const withDatabase = Boolean(process.env.DATABASE_URL);
const describeWithDatabase = withDatabase ? describe : describe.skip;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], env: Record<string, string>) {
  const child = spawn(command, args, {
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise<Run>((resolve) =>
    child.once('close', (code) => resolve({ code, stdout, stderr })),
  );
}

const cli = (args: string[], env: Record<string, string>) =>
  run(process.execPath, [join(process.cwd(), 'dist', 'cli.js'), ...args], env);

/**
 * Catalog as code, `db:export` of the embedded database into PostgreSQL, and
 * the day-two commands against the server it then runs on.
 */
describeWithDatabase(
  `CLI operations${withDatabase ? '' : ' (skipped: needs DATABASE_URL to load the export into)'}`,
  () => {
    let dir: string;
    let embedded: Record<string, string>;
    let target: { url: string | null; drop: () => Promise<void> };
    let server: Record<string, string>;
    let api: ZestProcess | undefined;
    let baseUrl: string;
    let receiver: WebhookReceiver;
    let demo: { store_id: number; api_key: string; product_ids: number[] };
    let product: Record<string, unknown>;
    let variant: Record<string, unknown>;

    const json = async (args: string[], env: Record<string, string>) => {
      const result = await cli([...args, '--json'], env);
      if (result.code !== 0)
        throw new Error(
          `${args.join(' ')} exited ${result.code}: ${result.stderr}`,
        );
      return JSON.parse(result.stdout) as Record<string, unknown>;
    };

    const file = (name: string, content: unknown) => {
      const path = join(dir, name);
      writeFileSync(
        path,
        typeof content === 'string' ? content : JSON.stringify(content),
      );
      return path;
    };

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'zest-cli-ops-'));
      embedded = {
        DATA_DIR: join(dir, 'data'),
        APP_KEY: TEST_APP_KEY,
        NODE_ENV: 'test',
      };
      target = await createTestDatabase();
      receiver = await startWebhookReceiver();
      demo = (await json(['seed:demo'], embedded)) as unknown as typeof demo;
    });

    afterAll(async () => {
      if (api) await terminate(api);
      await receiver?.close();
      await target?.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('products:create and variants:create take the API body from a file, with its checks', async () => {
      product = await json(
        [
          'products:create',
          '--file',
          file('product.json', {
            data: {
              type: 'products',
              attributes: { name: 'Field Guide', status: 'published' },
              relationships: {
                store: { data: { type: 'stores', id: String(demo.store_id) } },
              },
            },
          }),
        ],
        embedded,
      );
      expect(product).toMatchObject({
        type: 'products',
        name: 'Field Guide',
        store_id: demo.store_id,
        test_mode: true,
      });
      variant = await json(
        [
          'variants:create',
          '--file',
          file('variant.json', {
            data: {
              type: 'variants',
              attributes: { name: 'Hardback', status: 'published' },
              relationships: {
                product: { data: { type: 'products', id: String(product.id) } },
              },
            },
          }),
        ],
        embedded,
      );
      expect(variant).toMatchObject({
        type: 'variants',
        name: 'Hardback',
        product_id: Number(product.id),
        test_mode: true,
      });
    }, 240_000);

    it('db:export writes a dump that psql loads into a fresh PostgreSQL database, where the server answers with the same records', async () => {
      const dump = join(dir, 'zest.sql');
      const exported = await json(['db:export', dump], embedded);
      expect(exported.file).toBe(dump);
      expect(exported.tables).toBeGreaterThan(20);
      expect(statSync(dump).mode & 0o777).toBe(0o600);
      // Never over an existing file.
      const again = await cli(['db:export', dump, '--json'], embedded);
      expect(again.code).toBe(1);
      expect(JSON.parse(again.stdout).error).toContain('EEXIST');

      const load = await run(
        'psql',
        ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', target.url!, '-f', dump],
        {},
      );
      expect(load.stderr).toBe('');
      expect(load.code).toBe(0);

      server = {
        DATABASE_URL: target.url!,
        APP_KEY: TEST_APP_KEY,
        NODE_ENV: 'test',
        DATA_DIR: join(dir, 'server'),
        WEBHOOK_ALLOW_PRIVATE: 'true',
        LOG_LEVEL: 'silent',
      };
      // The migrations table came along: nothing left to apply.
      expect(await json(['migrate'], server)).toEqual({ applied: [] });
      const port = await freePort();
      baseUrl = `http://127.0.0.1:${port}`;
      api = spawnZest('main', {
        ...server,
        PORT: String(port),
        PUBLIC_BASE_URL: baseUrl,
      });
      await waitForReady(api, `${baseUrl}/health/ready`, 60_000);

      const read = (path: string) =>
        request(baseUrl)
          .get(path)
          .set('Authorization', `Bearer ${demo.api_key}`)
          .set('Accept', 'application/vnd.api+json')
          .expect(200);
      const store = await read(`/v1/stores/${demo.store_id}`);
      expect(store.body.data.attributes.name).toBe('Demo Store');
      const products = await read(
        `/v1/products?filter[store_id]=${demo.store_id}`,
      );
      expect(
        (products.body.data as { attributes: { name: string } }[]).map(
          (p) => p.attributes.name,
        ),
      ).toEqual(expect.arrayContaining(['Field Guide']));
      const copied = await read(`/v1/variants/${String(variant.id)}`);
      expect(copied.body.data.attributes.name).toBe('Hardback');
      // Ids go on from where the embedded database left them.
      const next = await request(baseUrl)
        .post('/v1/webhooks')
        .set('Authorization', `Bearer ${demo.api_key}`)
        .set('Content-Type', 'application/vnd.api+json')
        .send(
          JSON.stringify({
            data: {
              type: 'webhooks',
              attributes: {
                url: receiver.url('/hook'),
                events: ['order_created'],
                secret: 'ping-secret-123',
              },
              relationships: {
                store: {
                  data: { type: 'stores', id: String(demo.store_id) },
                },
              },
            },
          }),
        )
        .expect(201);
      expect(Number(next.body.data.id)).toBeGreaterThanOrEqual(1);
    }, 180_000);

    // The body checks are the CLI's and the API's, whatever the database: on
    // the server each command starts in a fraction of the embedded one's time.
    it('products:create and variants:create refuse what the API refuses', async () => {
      const liveMode = await json(
        [
          'products:create',
          '--file',
          join(dir, 'product.json'),
          '--mode',
          'live',
        ],
        server,
      );
      expect(liveMode.test_mode).toBe(false);

      // The API's validation, with its JSON pointers; nothing is written.
      const invalid = await cli(
        [
          'products:create',
          '--file',
          file('invalid.json', {
            data: {
              type: 'products',
              attributes: { name: 42 },
              relationships: {
                store: { data: { type: 'stores', id: String(demo.store_id) } },
              },
            },
          }),
          '--json',
        ],
        server,
      );
      expect(invalid.code).toBe(1);
      expect(JSON.parse(invalid.stdout).error).toMatch(
        /^\/data\/attributes\/name: /,
      );
      const wrongType = await cli(
        ['variants:create', '--file', join(dir, 'product.json'), '--json'],
        server,
      );
      expect(wrongType.code).toBe(1);
      expect(JSON.parse(wrongType.stdout).error).toBe(
        '/data/type: This endpoint takes "variants", not "products".',
      );
      const notJson = await cli(
        [
          'products:create',
          '--file',
          file('broken.json', '{"data":'),
          '--json',
        ],
        server,
      );
      expect(notJson.code).toBe(1);
      expect(JSON.parse(notJson.stdout).error).toContain('is not JSON');
      const noStore = await cli(
        [
          'products:create',
          '--file',
          file('no-store.json', {
            data: {
              type: 'products',
              attributes: { name: 'Nowhere' },
              relationships: {
                store: { data: { type: 'stores', id: '999' } },
              },
            },
          }),
          '--json',
        ],
        server,
      );
      expect(noStore.code).toBe(1);
      expect(JSON.parse(noStore.stdout).error).toBe('store 999 does not exist');
      const listed = (await json(['stores:list'], server)) as unknown as {
        stores: unknown[];
      };
      expect(listed.stores).toHaveLength(1);
    });

    it('webhooks:test sends a signed ping and prints the status', async () => {
      const [webhook] = (
        (await json(['webhooks:list'], server)) as unknown as {
          webhooks: { id: number }[];
        }
      ).webhooks;
      const result = await json(['webhooks:test', String(webhook.id)], server);
      expect(result).toMatchObject({
        webhook_id: webhook.id,
        event_name: 'ping',
        response_code: 200,
        succeeded: true,
      });
      const ping = receiver.received.at(-1)!;
      expect(ping.path).toBe('/hook');
      expect(ping.headers['x-event-name']).toBe('ping');
      expect(ping.headers['x-signature']).toBe(
        createHmac('sha256', 'ping-secret-123').update(ping.body).digest('hex'),
      );
      expect(JSON.parse(ping.body)).toEqual({
        meta: {
          event_name: 'ping',
          test_mode: true,
          webhook_id: String(webhook.id),
        },
        data: null,
      });
      const missing = await cli(['webhooks:test', '9999', '--json'], server);
      expect(missing.code).toBe(1);
      expect(JSON.parse(missing.stdout).error).toBe(
        'webhook 9999 does not exist',
      );
      const usage = await cli(['webhooks:test', '--json'], server);
      expect(usage.code).toBe(2);
      expect(JSON.parse(usage.stdout).error).toBe('<id> is required');
    });

    it('orders:refund refunds in part, then the rest, with the API checks', async () => {
      const url = await buyNowUrl(
        baseUrl,
        demo.api_key,
        String(demo.product_ids[0]),
      );
      const bought = await buy(baseUrl, url).expect(201);
      const orderId = String(
        (bought.body as { order?: { id: number | string } }).order?.id ??
          (
            await request(baseUrl)
              .get('/v1/orders')
              .set('Authorization', `Bearer ${demo.api_key}`)
              .expect(200)
          ).body.data[0].id,
      );
      const part = await json(
        ['orders:refund', orderId, '--amount', '100'],
        server,
      );
      expect(part).toMatchObject({
        type: 'orders',
        id: orderId,
        refunded_amount: 100,
        refunded: false,
      });
      const zero = await cli(
        ['orders:refund', orderId, '--amount', '0', '--json'],
        server,
      );
      expect(zero.code).toBe(1);
      expect(JSON.parse(zero.stdout).error).toMatch(
        /^\/data\/attributes\/amount: The amount must be/,
      );
      const rest = await json(['orders:refund', orderId], server);
      expect(rest).toMatchObject({ status: 'refunded', refunded: true });
      const over = await cli(['orders:refund', orderId, '--json'], server);
      expect(over.code).toBe(1);
      // Over the API: the same order, refunded.
      const order = await request(baseUrl)
        .get(`/v1/orders/${orderId}`)
        .set('Authorization', `Bearer ${demo.api_key}`)
        .expect(200);
      expect(order.body.data.attributes.status).toBe('refunded');
    });

    it('every new command explains itself', async () => {
      for (const name of [
        'products:create',
        'variants:create',
        'webhooks:test',
        'orders:refund',
        'db:export',
      ]) {
        const help = await cli([name, '--help'], {});
        expect(help.code).toBe(0);
        expect(help.stdout).toContain(`Usage: npm run cli -- ${name}`);
        expect(help.stdout).toContain('Example:');
      }
      const refund = await cli(['orders:refund', '--help'], {});
      expect(refund.stdout).toContain('Arguments:\n  <id>');
      const exportOnServer = await cli(['db:export', '--json'], server);
      expect(exportOnServer.code).toBe(2);
    });
  },
);
