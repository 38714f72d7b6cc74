import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { Client } from 'pg';
import request from 'supertest';
import { DataSource } from 'typeorm';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  updateWebhook,
} from '@lemonsqueezy/lemonsqueezy.js';
import { AppError } from '../../src/common/app-error';
import { Transactions } from '../../src/database/transactions';
import { StoreSerializer } from '../../src/modules/store/store.serializer';
import { StoreService } from '../../src/modules/store/store.service';
import { Outbox } from '../../src/modules/webhooks/outbox';
import { WebhookAttemptRepository } from '../../src/modules/webhooks/webhook-attempt.repository';
import { WebhookRepository } from '../../src/modules/webhooks/webhook.repository';
import { WebhookService } from '../../src/modules/webhooks/webhook.service';
import { WebhookRelayService } from '../../src/modules/webhooks/webhook-relay.service';
import { WebhookEventName } from '../../src/modules/webhooks/webhook-events';
import { createMerchant, Merchant } from '../support/factories';
import { useSdkAgainst } from '../support/sdk';
import { startTestApp, TestApp } from '../support/test-app';
import {
  CapturingLogger,
  startTestWorker,
  TestWorker,
} from '../support/worker';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** A local webhook receiver; each path answers by its own script. */
async function startReceiver() {
  const received: Received[] = [];
  const counts = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      const n = (counts.get(path) ?? 0) + 1;
      counts.set(path, n);
      received.push({
        path,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      });
      if (path.startsWith('/flaky') && n <= 2) res.writeHead(500).end('no');
      else if (path.startsWith('/always-500')) res.writeHead(500).end('no');
      else if (path.startsWith('/gone')) res.writeHead(410).end('gone');
      else if (path.startsWith('/busy') && n === 1)
        res.writeHead(429, { 'Retry-After': '2' }).end('busy');
      else if (path.startsWith('/hang-once') && n === 1)
        return; // never answers
      else res.writeHead(200).end('ok');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    at: (path: string) => received.filter((r) => r.path === path),
    all: received,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function waitFor<T>(
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('webhooks', () => {
  let t: TestApp;
  let worker: TestWorker;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let merchant: Merchant;
  let other: Merchant;
  const logs = new CapturingLogger();
  const responses: string[] = [];
  const secrets: string[] = [];

  beforeAll(async () => {
    t = await startTestApp({
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_RETRY_DELAYS: '300ms,300ms',
      WEBHOOK_RELAY_INTERVAL_MS: '400',
      WEBHOOK_TIMEOUT_MS: '1500',
      LOG_LEVEL: 'silent',
    });
    t.app.useLogger(logs);
    worker = await startTestWorker(t, logs);
    receiver = await startReceiver();
    merchant = await createMerchant(t.app, ['First Store', 'Second Store']);
    other = await createMerchant(t.app, ['Foreign Store']);
  });
  afterAll(async () => {
    await worker?.close();
    await t?.close();
    await receiver?.close();
  });

  const send = (
    method: 'get' | 'post' | 'patch' | 'delete',
    path: string,
    key = merchant.testKey,
    body?: unknown,
  ) => {
    let req = request(t.baseUrl)
      [method](path)
      .set('Authorization', `Bearer ${key}`)
      .set('Accept', 'application/vnd.api+json');
    if (body !== undefined)
      req = req
        .set('Content-Type', 'application/vnd.api+json')
        .send(JSON.stringify(body));
    return {
      /** Checks the status (showing the body when it differs) and keeps the text for the secret check. */
      expect: async (status: number) => {
        const response = await req;
        responses.push(response.text);
        if (response.status !== status) {
          throw new Error(
            `${method.toUpperCase()} ${path}: expected ${status}, got ${response.status} ${response.text}`,
          );
        }
        return response;
      },
    };
  };

  const newWebhook = (
    attributes: Record<string, unknown>,
    storeId: number | string = merchant.stores[0].id,
    key = merchant.testKey,
  ) => {
    if (typeof attributes.secret === 'string' && attributes.secret.length >= 6)
      secrets.push(attributes.secret);
    return send('post', '/v1/webhooks', key, {
      data: {
        type: 'webhooks',
        attributes,
        relationships: {
          store: { data: { type: 'stores', id: String(storeId) } },
        },
      },
    });
  };

  const errorPointers = (body: {
    errors: { source?: { pointer?: string } }[];
  }) => body.errors.map((e) => e.source?.pointer);

  describe('CRUD', () => {
    it('creates a webhook (201) with exactly the 7 attributes and never the secret', async () => {
      const response = await newWebhook({
        url: receiver.url('/crud'),
        events: ['order_created', 'subscription_created'],
        secret: 'crud-secret-1',
      }).expect(201);
      expect(response.headers['content-type']).toMatch(
        /^application\/vnd\.api\+json/,
      );
      const data = response.body.data;
      expect(data.type).toBe('webhooks');
      expect(Object.keys(data.attributes)).toEqual([
        'store_id',
        'url',
        'events',
        'last_sent_at',
        'created_at',
        'updated_at',
        'test_mode',
      ]);
      expect(data.attributes).toMatchObject({
        store_id: merchant.stores[0].id,
        url: receiver.url('/crud'),
        events: ['order_created', 'subscription_created'],
        last_sent_at: null,
        test_mode: true,
      });
      expect(data.attributes.created_at).toMatch(TIMESTAMP);
      expect(Object.keys(data.relationships)).toEqual(['store']);
      expect(data.links.self).toBe(`${t.baseUrl}/v1/webhooks/${data.id}`);
      expect(response.text).not.toContain('crud-secret-1');
    });

    it.each([
      [{ events: [] }, '/data/attributes/events'],
      [{ events: ['order_created', 'nope'] }, '/data/attributes/events'],
      [{ events: 'order_created' }, '/data/attributes/events'],
      [
        { events: ['order_created', 'order_created'] },
        '/data/attributes/events',
      ],
      [{ secret: 'short' }, '/data/attributes/secret'],
      [{ secret: 'x'.repeat(41) }, '/data/attributes/secret'],
      [{ secret: undefined }, '/data/attributes/secret'],
      [{ url: 'not a url' }, '/data/attributes/url'],
      [{ url: 'ftp://example.com/' }, '/data/attributes/url'],
      [{ url: 'http://user:pw@example.com/' }, '/data/attributes/url'],
      [{ url: undefined }, '/data/attributes/url'],
      [{ test_mode: false }, '/data/attributes/test_mode'],
    ])('refuses %p with 422', async (change, pointer) => {
      const response = await newWebhook({
        url: receiver.url('/x'),
        events: ['order_created'],
        secret: 'valid-secret',
        ...change,
      }).expect(422);
      expect(errorPointers(response.body)).toContain(pointer);
      expect(response.body.errors[0].title).toBe('Unprocessable Entity');
    });

    it('requires https for live-mode webhooks', async () => {
      const response = await newWebhook(
        {
          url: receiver.url('/live'),
          events: ['order_created'],
          secret: 'live-secret',
        },
        merchant.stores[0].id,
        merchant.liveKey,
      ).expect(422);
      expect(errorPointers(response.body)).toEqual(['/data/attributes/url']);
      expect(response.body.errors[0].code).toBe('webhook_url_refused');
    });

    it('answers 404 for a store that is not the caller’s, and 422 without a store', async () => {
      const response = await newWebhook(
        {
          url: receiver.url('/x'),
          events: ['order_created'],
          secret: 'valid-secret',
        },
        other.stores[0].id,
      ).expect(404);
      expect(errorPointers(response.body)).toEqual([
        '/data/relationships/store',
      ]);
      await send('post', '/v1/webhooks', merchant.testKey, {
        data: {
          type: 'webhooks',
          attributes: {
            url: receiver.url('/x'),
            events: ['order_created'],
            secret: 'valid-secret',
          },
        },
      }).expect(422);
      await send('post', '/v1/webhooks', merchant.testKey, {
        data: { type: 'stores', attributes: {} },
      }).expect(400);
    });

    it('refuses private and local targets when saving unless WEBHOOK_ALLOW_PRIVATE', async () => {
      // This app allows them (the receiver is on loopback); the same service
      // with the production default refuses them.
      const strict = new WebhookService(
        t.app.get(WebhookRepository),
        t.app.get(StoreService),
        {
          ...t.config,
          webhooks: { ...t.config.webhooks, allowPrivate: false },
        },
      );
      const principal = {
        userId: merchant.userId,
        apiKeyId: 0,
        testMode: true,
      };
      for (const url of [
        'http://127.0.0.1:8080/',
        'http://[::1]/',
        'http://169.254.169.254/latest/meta-data/',
        'http://10.0.0.5/hook',
        'http://localhost/hook',
        'http://0x7f000001/',
      ]) {
        const error = await strict
          .create(principal, String(merchant.stores[0].id), {
            url,
            events: ['order_created'],
            secret: 'strict-secret',
          })
          .then(
            () => null,
            (e: unknown) => e as AppError,
          );
        expect({ url, status: error?.status }).toEqual({ url, status: 422 });
        // The service names the attribute; the exception filter makes it
        // the pointer /data/attributes/url (checked over HTTP above).
        expect(error!.errors[0]).toMatchObject({
          field: 'url',
          code: 'webhook_url_refused',
        });
      }
      const allowed = await strict.create(
        principal,
        String(merchant.stores[0].id),
        {
          url: 'https://hooks.example.com/in',
          events: ['order_created'],
          secret: 'strict-secret',
        },
      );
      await strict.delete(principal, allowed.id);
    });

    it('lists by created_at ascending, filters by store, and hides other modes and users', async () => {
      const second = await newWebhook(
        {
          url: receiver.url('/list'),
          events: ['order_refunded'],
          secret: 'list-secret',
        },
        merchant.stores[1].id,
      ).expect(201);
      const live = await newWebhook(
        {
          url: 'https://hooks.example.com/live',
          events: ['order_created'],
          secret: 'live-secret',
          test_mode: false,
        },
        merchant.stores[0].id,
        merchant.liveKey,
      ).expect(201);
      expect(live.body.data.attributes.test_mode).toBe(false);

      const all = await send('get', '/v1/webhooks?include=').expect(200);
      const ids = all.body.data.map((w: { id: string }) => w.id);
      expect(ids).toEqual([...ids].sort((a, b) => Number(a) - Number(b)));
      expect(ids).toContain(second.body.data.id);
      expect(ids).not.toContain(live.body.data.id);
      expect(all.body.links.first).toContain('sort=createdAt');

      const filtered = await send(
        'get',
        `/v1/webhooks?filter[store_id]=${merchant.stores[1].id}`,
      ).expect(200);
      expect(filtered.body.data.map((w: { id: string }) => w.id)).toEqual([
        second.body.data.id,
      ]);
      expect(filtered.body.meta.page.total).toBe(1);

      await send('get', '/v1/webhooks?filter[url]=x').expect(400);
      await send('get', `/v1/webhooks/${live.body.data.id}`).expect(404);
      await send(
        'get',
        `/v1/webhooks/${second.body.data.id}`,
        merchant.liveKey,
      ).expect(404);
      await send(
        'get',
        `/v1/webhooks/${second.body.data.id}`,
        other.testKey,
      ).expect(404);
      const foreign = await send('get', '/v1/webhooks', other.testKey).expect(
        200,
      );
      expect(foreign.body.data).toEqual([]);

      const withStore = await send(
        'get',
        `/v1/webhooks/${second.body.data.id}?include=store`,
      ).expect(200);
      expect(withStore.body.data.relationships.store.data).toEqual({
        type: 'stores',
        id: String(merchant.stores[1].id),
      });
      expect(withStore.body.included[0].type).toBe('stores');
    });

    it('updates url, events and secret, and deletes with 204 and no body', async () => {
      const created = await newWebhook({
        url: receiver.url('/before'),
        events: ['order_created'],
        secret: 'before-secret',
      }).expect(201);
      const id = created.body.data.id as string;
      secrets.push('after-secret');
      const updated = await send(
        'patch',
        `/v1/webhooks/${id}`,
        merchant.testKey,
        {
          data: {
            type: 'webhooks',
            id,
            attributes: {
              url: receiver.url('/after'),
              events: ['license_key_created'],
              secret: 'after-secret',
            },
          },
        },
      ).expect(200);
      expect(updated.body.data.attributes).toMatchObject({
        url: receiver.url('/after'),
        events: ['license_key_created'],
      });
      expect(updated.text).not.toContain('after-secret');

      await send('patch', `/v1/webhooks/${id}`, merchant.testKey, {
        data: { type: 'webhooks', id, attributes: { events: [] } },
      }).expect(422);
      await send('patch', `/v1/webhooks/${id}`, merchant.testKey, {
        data: { type: 'webhooks', id, attributes: { url: null } },
      }).expect(422);
      await send('patch', `/v1/webhooks/${id}`, merchant.testKey, {
        data: { type: 'webhooks', id: '999999', attributes: {} },
      }).expect(409);
      await send('patch', `/v1/webhooks/${id}`, other.testKey, {
        data: {
          type: 'webhooks',
          id,
          attributes: { events: ['order_created'] },
        },
      }).expect(404);

      await send('delete', `/v1/webhooks/${id}`, other.testKey).expect(404);
      const deleted = await send('delete', `/v1/webhooks/${id}`).expect(204);
      expect(deleted.text).toBe('');
      await send('get', `/v1/webhooks/${id}`).expect(404);
      await send('delete', `/v1/webhooks/${id}`).expect(404);
    });

    it('works with the official SDK', async () => {
      const restore = useSdkAgainst(t.baseUrl, merchant.testKey);
      try {
        secrets.push('sdk-secret-1', 'sdk-secret-2');
        const created = await createWebhook(merchant.stores[0].id, {
          url: receiver.url('/sdk'),
          events: ['subscription_payment_success', 'license_key_updated'],
          secret: 'sdk-secret-1',
          testMode: true,
        });
        expect(created.error).toBeNull();
        expect(created.statusCode).toBe(201);
        const id = created.data!.data.id;
        const fetched = await getWebhook(id, { include: ['store'] });
        expect(fetched.error).toBeNull();
        expect(fetched.data!.data.attributes.events).toEqual([
          'subscription_payment_success',
          'license_key_updated',
        ]);
        const listed = await listWebhooks({
          filter: { storeId: merchant.stores[0].id },
          page: { size: 50 },
        });
        expect(listed.error).toBeNull();
        expect(listed.data!.data.map((w) => w.id)).toContain(id);
        const updated = await updateWebhook(id, {
          events: ['order_created'],
          secret: 'sdk-secret-2',
        });
        expect(updated.error).toBeNull();
        expect(updated.data!.data.attributes.events).toEqual(['order_created']);
        // The SDK cannot parse the empty 204 body as JSON; that the webhook is gone is what counts.
        await deleteWebhook(id);
        expect((await getWebhook(id)).statusCode).toBe(404);
      } finally {
        restore();
      }
    });

    it('stores the secret encrypted', async () => {
      const rows: { secret_encrypted: string }[] = await t.app
        .get(DataSource)
        .query('SELECT secret_encrypted FROM webhooks');
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) {
        expect(row.secret_encrypted).toMatch(/^v1\./);
        for (const secret of secrets)
          expect(row.secret_encrypted).not.toContain(secret);
      }
    });
  });

  describe('delivery', () => {
    const storeView = async (storeId: number) =>
      (await t.app
        .get(StoreService)
        .findOne(
          { userId: merchant.userId, apiKeyId: 0, testMode: true },
          storeId,
        ))!;

    /** Records an event the way domain modules do: Outbox.record inside their transaction. */
    const recordEvent = async (
      name: WebhookEventName,
      customData: Record<string, unknown> | null = null,
      options: {
        rollback?: boolean;
        storeId?: number;
        testMode?: boolean;
      } = {},
    ) => {
      const storeId = options.storeId ?? merchant.stores[0].id;
      const store = await storeView(storeId);
      const work = t.app.get(Transactions).run(async (manager) => {
        await t.app.get(Outbox).record(manager, {
          name,
          storeId,
          testMode: options.testMode ?? true,
          resource: t.app.get(StoreSerializer),
          record: store,
          customData,
        });
        if (options.rollback) throw new Error('rolled back on purpose');
      });
      if (options.rollback)
        await expect(work).rejects.toThrow('rolled back on purpose');
      else await work;
    };

    const deliveriesOf = async (webhookId: string) =>
      (await send('get', `/v1/webhooks/${webhookId}/deliveries`).expect(200))
        .body;

    let main: string;
    const SECRET = 'delivery-secret';

    beforeAll(async () => {
      const hook = async (
        path: string,
        events: string[],
        secret: string,
        storeId = merchant.stores[0].id,
        key = merchant.testKey,
        url = receiver.url(path),
      ) =>
        (await newWebhook({ url, events, secret }, storeId, key).expect(201))
          .body.data.id as string;
      main = await hook('/main', ['order_created'], SECRET);
      // Non-matching: other store, other event, other mode.
      await hook(
        '/other-store',
        ['order_created'],
        'other-secret',
        merchant.stores[1].id,
      );
      await hook('/other-event', ['subscription_created'], 'other-secret');
      await hook(
        '/other-mode',
        ['order_created'],
        'other-secret',
        merchant.stores[0].id,
        merchant.liveKey,
        receiver.url('/other-mode').replace('http:', 'https:'),
      );
    });

    it('delivers a signed snapshot of the resource to matching webhooks only', async () => {
      const before = Date.now();
      await recordEvent('order_created', null, { rollback: true });
      await recordEvent('order_created', { user_id: '123' });
      const [delivery] = await waitFor(() => {
        const got = receiver.at('/main');
        return got.length > 0 ? got : undefined;
      });
      expect(delivery.at - before).toBeLessThan(5000);

      const h = delivery.headers;
      expect(h['content-type']).toBe('application/json');
      expect(h['x-event-name']).toBe('order_created');
      expect(h['x-signature']).toBe(
        createHmac('sha256', SECRET).update(delivery.body).digest('hex'),
      );
      const id = h['webhook-id'] as string;
      const timestamp = h['webhook-timestamp'] as string;
      expect(id).toMatch(/^msg_\d+$/);
      expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(60);
      expect(h['webhook-signature']).toBe(
        `v1,${createHmac('sha256', SECRET)
          .update(`${id}.${timestamp}.${delivery.body}`)
          .digest('base64')}`,
      );

      const body = JSON.parse(delivery.body);
      expect(Object.keys(body)).toEqual(['meta', 'data']);
      expect(body.meta).toEqual({
        event_name: 'order_created',
        test_mode: true,
        webhook_id: main,
        custom_data: { user_id: '123' },
      });
      const get = await send(
        'get',
        `/v1/stores/${merchant.stores[0].id}`,
      ).expect(200);
      expect(body.data).toEqual(get.body.data);
      // Same attribute order as the GET.
      expect(Object.keys(body.data.attributes)).toEqual(
        Object.keys(get.body.data.attributes),
      );

      // Several relay and sweep rounds later nothing else arrived: not the
      // rolled-back event, not the non-matching webhooks.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(receiver.at('/main')).toHaveLength(1);
      expect(receiver.at('/other-store')).toHaveLength(0);
      expect(receiver.at('/other-event')).toHaveLength(0);
      expect(receiver.at('/other-mode')).toHaveLength(0);

      const webhook = await send('get', `/v1/webhooks/${main}`).expect(200);
      expect(webhook.body.data.attributes.last_sent_at).toMatch(TIMESTAMP);

      const log = await deliveriesOf(main);
      expect(log.data).toHaveLength(1);
      const entry = log.data[0];
      expect(entry.type).toBe('webhook-deliveries');
      expect(entry.attributes).toMatchObject({
        webhook_id: Number(main),
        event_name: 'order_created',
        status: 'succeeded',
        attempts: 1,
        last_response_code: 200,
        next_attempt_at: null,
        test_mode: true,
      });
      expect(entry.attributes.delivered_at).toMatch(TIMESTAMP);
      expect(entry.attributes.attempt_log).toEqual([
        expect.objectContaining({
          attempt: 1,
          status: 'succeeded',
          response_code: 200,
          error: null,
          duration_ms: expect.any(Number),
          started_at: expect.stringMatching(TIMESTAMP),
          finished_at: expect.stringMatching(TIMESTAMP),
        }),
      ]);
      expect(log.meta.page.total).toBe(1);
      expect(log.links.first).toBe(
        `${t.baseUrl}/v1/webhooks/${main}/deliveries?page%5Bnumber%5D=1&page%5Bsize%5D=10&sort=-createdAt`,
      );
      await send(
        'get',
        `/v1/webhooks/${main}/deliveries`,
        other.testKey,
      ).expect(404);
      await send('get', `/v1/webhook-deliveries/${entry.id}`).expect(200);
      await send(
        'get',
        `/v1/webhook-deliveries/${entry.id}`,
        other.testKey,
      ).expect(404);
    });

    it('retries a receiver that answers 500 on the schedule, with the same id and body, then succeeds', async () => {
      const flaky = (
        await newWebhook({
          url: receiver.url('/flaky'),
          events: ['subscription_updated'],
          secret: 'flaky-secret',
        }).expect(201)
      ).body.data.id as string;
      await recordEvent('subscription_updated');
      const attempts = await waitFor(() => {
        const got = receiver.at('/flaky');
        return got.length >= 3 ? got : undefined;
      });
      expect(new Set(attempts.map((a) => a.headers['webhook-id'])).size).toBe(
        1,
      );
      expect(new Set(attempts.map((a) => a.body)).size).toBe(1);
      // 300 ms ± 10 % jitter between attempts.
      expect(attempts[1].at - attempts[0].at).toBeGreaterThanOrEqual(250);
      expect(attempts[2].at - attempts[1].at).toBeGreaterThanOrEqual(250);
      const entry = await waitFor(async () => {
        const log = await deliveriesOf(flaky);
        return log.data[0]?.attributes.status === 'succeeded'
          ? log.data[0]
          : undefined;
      });
      expect(entry.attributes.attempts).toBe(3);
      expect(
        entry.attributes.attempt_log.map(
          (a: { response_code: number }) => a.response_code,
        ),
      ).toEqual([500, 500, 200]);
      await new Promise((resolve) => setTimeout(resolve, 800));
      expect(receiver.at('/flaky')).toHaveLength(3);
    });

    it('marks a delivery failed after the last retry, and resends it on request', async () => {
      const failing = (
        await newWebhook({
          url: receiver.url('/always-500'),
          events: ['license_key_updated'],
          secret: 'failing-secret',
        }).expect(201)
      ).body.data.id as string;
      await recordEvent('license_key_updated');
      const entry = await waitFor(async () => {
        const log = await deliveriesOf(failing);
        return log.data[0]?.attributes.status === 'failed'
          ? log.data[0]
          : undefined;
      });
      expect(entry.attributes).toMatchObject({
        attempts: 3,
        last_response_code: 500,
        next_attempt_at: null,
        delivered_at: null,
      });
      expect(
        entry.attributes.attempt_log.map((a: { error: string }) => a.error),
      ).toEqual(['HTTP 500', 'HTTP 500', 'HTTP 500']);
      expect(receiver.at('/always-500')).toHaveLength(3);

      await send(
        'post',
        `/v1/webhook-deliveries/${entry.id}/resend`,
        other.testKey,
      ).expect(404);
      const resent = await send(
        'post',
        `/v1/webhook-deliveries/${entry.id}/resend`,
      ).expect(202);
      expect(resent.body.data.attributes.status).toBe('pending');
      const again = await waitFor(async () => {
        const log = await deliveriesOf(failing);
        return log.data[0]?.attributes.status === 'failed' &&
          log.data[0].attributes.attempts === 6
          ? log.data[0]
          : undefined;
      });
      expect(again.attributes.attempt_log).toHaveLength(6);
      expect(receiver.at('/always-500')).toHaveLength(6);
    });

    it('stops retrying a receiver that answers 410 Gone', async () => {
      const gone = (
        await newWebhook({
          url: receiver.url('/gone'),
          events: ['subscription_expired'],
          secret: 'gone-secret',
        }).expect(201)
      ).body.data.id as string;
      await recordEvent('subscription_expired');
      const entry = await waitFor(async () => {
        const log = await deliveriesOf(gone);
        return log.data[0]?.attributes.status === 'failed'
          ? log.data[0]
          : undefined;
      });
      expect(entry.attributes).toMatchObject({
        attempts: 1,
        last_response_code: 410,
        next_attempt_at: null,
      });
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(receiver.at('/gone')).toHaveLength(1);
    });

    it("waits for a busy receiver's Retry-After before the next attempt", async () => {
      const busy = (
        await newWebhook({
          url: receiver.url('/busy'),
          events: ['subscription_resumed'],
          secret: 'busy-secret',
        }).expect(201)
      ).body.data.id as string;
      await recordEvent('subscription_resumed');
      const entry = await waitFor(async () => {
        const log = await deliveriesOf(busy);
        return log.data[0]?.attributes.status === 'succeeded'
          ? log.data[0]
          : undefined;
      });
      expect(
        entry.attributes.attempt_log.map(
          (a: { response_code: number }) => a.response_code,
        ),
      ).toEqual([429, 200]);
      const [first, second] = receiver.at('/busy');
      // The schedule says 300 ms; the receiver asked for 2 s.
      expect(second.at - first.at).toBeGreaterThanOrEqual(1900);
    });

    it('times out a receiver that hangs and retries it', async () => {
      const hanging = (
        await newWebhook({
          url: receiver.url('/hang-once'),
          events: ['order_refunded'],
          secret: 'hanging-secret',
        }).expect(201)
      ).body.data.id as string;
      await recordEvent('order_refunded');
      const entry = await waitFor(async () => {
        const log = await deliveriesOf(hanging);
        return log.data[0]?.attributes.status === 'succeeded'
          ? log.data[0]
          : undefined;
      });
      const [first, second] = entry.attributes.attempt_log;
      expect(first.response_code).toBeNull();
      expect(first.error).toMatch(/Timed out after 1500 ms/);
      expect(first.duration_ms).toBeGreaterThanOrEqual(1400);
      expect(second.response_code).toBe(200);
    });

    it('relays every event of a burst exactly once per matching webhook', async () => {
      const burst = (
        await newWebhook({
          url: receiver.url('/burst'),
          events: ['subscription_paused'],
          secret: 'burst-secret',
        }).expect(201)
      ).body.data.id as string;
      await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          recordEvent('subscription_paused', { n: i }),
        ),
      );
      // Duplicate relays racing the nudged ones must not double anything.
      const relay = worker.context.get(WebhookRelayService);
      await Promise.all([relay.relay(), relay.relay(), relay.relay()]);
      await waitFor(() =>
        receiver.at('/burst').length >= 30 ? true : undefined,
      );
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const got = receiver.at('/burst');
      expect(got).toHaveLength(30);
      expect(
        new Set(got.map((r) => JSON.parse(r.body).meta.custom_data.n)).size,
      ).toBe(30);
      const log = await send(
        'get',
        `/v1/webhooks/${burst}/deliveries?page[size]=100&filter[status]=succeeded`,
      ).expect(200);
      expect(log.body.meta.page.total).toBe(30);
    });

    // Only a database server runs transactions side by side (PGlite is one session).
    (process.env.DATABASE_URL ? it : it.skip)(
      "records an attempt while a relay's insert for the same webhook is still open",
      async () => {
        const hookId = (
          await newWebhook({
            url: receiver.url('/locks'),
            events: ['license_key_updated'],
            secret: 'locks-secret',
          }).expect(201)
        ).body.data.id as string;
        // Two events the webhook is not subscribed to, so the relay makes
        // no deliveries of them for it.
        await recordEvent('subscription_expired');
        await recordEvent('subscription_expired');
        const db = t.app.get(DataSource);
        const events: { id: string }[] = await db.query(
          `SELECT id::text AS id FROM webhook_events
            WHERE name = 'subscription_expired' ORDER BY id DESC LIMIT 2`,
        );
        expect(events).toHaveLength(2);
        // Not due for an hour, so the worker leaves both deliveries alone.
        const insertDelivery = `INSERT INTO webhook_deliveries (event_id, webhook_id, next_attempt_at)
          VALUES ($1, $2, now() + interval '1 hour') RETURNING id::text AS id`;
        const [delivery]: { id: string }[] = await db.query(insertDelivery, [
          events[0].id,
          hookId,
        ]);
        // A relay in progress: its new delivery holds a key share on the
        // webhook until it commits.
        const relay = new Client({ connectionString: t.config.database.url! });
        await relay.connect();
        try {
          await relay.query('BEGIN');
          await relay.query(insertDelivery, [events[1].id, hookId]);
          const now = new Date();
          const recorded = worker.context
            .get(WebhookAttemptRepository)
            .finishMany([
              {
                id: delivery.id,
                outcome: {
                  attempt: 1,
                  status: 'succeeded',
                  responseCode: 200,
                  error: null,
                  durationMs: 5,
                  startedAt: now,
                  finishedAt: now,
                  nextAttemptAt: null,
                },
              },
            ]);
          const blocked = new Promise<'blocked'>((resolve) =>
            setTimeout(() => resolve('blocked'), 3000),
          );
          expect(await Promise.race([recorded, blocked])).toEqual([true]);
        } finally {
          await relay.query('ROLLBACK').catch(() => undefined);
          await relay.end();
        }
      },
    );
  });

  describe('sweeper', () => {
    it('enqueues a due delivery whose job never reached the queue', async () => {
      const swept = (
        await newWebhook({
          url: receiver.url('/swept'),
          events: ['order_created'],
          secret: 'swept-secret',
        }).expect(201)
      ).body.data.id as string;
      // A delivery row whose enqueue was lost (as if the relay died after its commit).
      const [event]: { id: string }[] = await t.app
        .get(DataSource)
        .query(`SELECT id::text AS id FROM webhook_events ORDER BY id LIMIT 1`);
      await t.app
        .get(DataSource)
        .query(
          `INSERT INTO webhook_deliveries (event_id, webhook_id, next_attempt_at) VALUES ($1, $2, now())`,
          [event.id, swept],
        );
      const [delivery] = await waitFor(() => {
        const got = receiver.at('/swept');
        return got.length > 0 ? got : undefined;
      });
      expect(delivery.headers['x-signature']).toBe(
        createHmac('sha256', 'swept-secret')
          .update(delivery.body)
          .digest('hex'),
      );
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(receiver.at('/swept')).toHaveLength(1);
    });
  });

  it('deletes events and their delivery log after the retention period, never pending ones', async () => {
    const db = t.app.get(DataSource);
    // The event and its delivery in one statement: the worker's scheduled
    // sweep runs meanwhile, and would delete an old event seen without one.
    const old = async (status: string) => {
      const [event]: { id: string }[] = await db.query(
        `WITH event AS (
           INSERT INTO webhook_events (name, store_id, test_mode, data, created_at, relayed_at)
           VALUES ('order_created', $1, true, '{}', now() - interval '31 days', now() - interval '31 days')
           RETURNING id),
         delivery AS (
           INSERT INTO webhook_deliveries (event_id, webhook_id, status, next_attempt_at)
           SELECT event.id, (SELECT id FROM webhooks ORDER BY id LIMIT 1), $2,
                  CASE WHEN $2 = 'pending' THEN now() + interval '1 day' END
             FROM event)
         SELECT id::text AS id FROM event`,
        [merchant.stores[1].id, status],
      );
      return event.id;
    };
    const done = await old('succeeded');
    const pending = await old('pending');
    const recent: { id: string }[] = await db.query(
      `SELECT id::text AS id FROM webhook_events WHERE created_at > now() - interval '1 day'`,
    );
    await worker.context.get(WebhookRelayService).sweep();
    const left: { id: string }[] = await db.query(
      `SELECT id::text AS id FROM webhook_events`,
    );
    const ids = left.map((row) => row.id);
    expect(ids).not.toContain(done);
    expect(ids).toContain(pending);
    for (const row of recent) expect(ids).toContain(row.id);
    const orphans: unknown[] = await db.query(
      `SELECT 1 FROM webhook_deliveries WHERE event_id = $1`,
      [done],
    );
    expect(orphans).toEqual([]);
  });

  it('never shows a secret in a response or a log line', () => {
    expect(secrets.length).toBeGreaterThan(5);
    expect(logs.lines.length).toBeGreaterThan(0);
    for (const secret of secrets) {
      for (const text of responses) expect(text).not.toContain(secret);
      for (const line of logs.lines) expect(line).not.toContain(secret);
    }
  });
});
