import { once } from 'node:events';
import { createServer, Server } from 'node:http';
import { AddressInfo, Socket } from 'node:net';
import request from 'supertest';
import { WebhookDeliveryService } from '../../src/modules/webhooks/webhook-delivery.service';
import { WebhookSender } from '../../src/modules/webhooks/webhook-sender';
import { Resolver } from '../../src/modules/webhooks/webhook-url';
import { buy } from '../support/commerce';
import {
  createMerchant,
  createPricedProduct,
  Merchant,
} from '../support/factories';
import { startTestApp, TestApp } from '../support/test-app';
import {
  CapturingLogger,
  startTestWorker,
  TestWorker,
} from '../support/worker';

interface Attempt {
  status: string;
  error: string | null;
  response_code: number | null;
}

/**
 * DNS rebinding against webhook delivery, with the production setting
 * (WEBHOOK_ALLOW_PRIVATE unset). The URL's name is checked when the webhook
 * is saved (it names a public-looking host), and the address it resolves to
 * is checked again on every delivery attempt, at connect time, through a
 * resolver this test controls: a name whose DNS answer turned private after
 * the save never gets a connection.
 */
describe('webhook delivery against DNS rebinding', () => {
  let t: TestApp;
  let worker: TestWorker;
  let merchant: Merchant;
  let canary: Server;
  let connections = 0;
  const lookups: string[] = [];

  beforeAll(async () => {
    t = await startTestApp({
      WEBHOOK_RETRY_DELAYS: '200ms,200ms',
      WEBHOOK_RELAY_INTERVAL_MS: '300',
      WEBHOOK_TIMEOUT_MS: '1500',
      LOG_LEVEL: 'silent',
    });
    expect(t.config.webhooks.allowPrivate).toBe(false);
    const logs = new CapturingLogger();
    t.app.useLogger(logs);
    worker = await startTestWorker(t, logs);
    // The private target the rebinding name is made to point at.
    canary = createServer((_req, res) => res.writeHead(200).end('ok'));
    canary.on('connection', (socket: Socket) => {
      connections++;
      socket.destroy();
    });
    canary.listen(0, '127.0.0.1');
    await once(canary, 'listening');
    // Every answer for the name is private by now: the loopback canary, an
    // address in the cloud metadata range, then a private network address.
    const answers = ['127.0.0.1', '169.254.169.254', '10.0.0.7'];
    const resolver: Resolver = (hostname) => {
      lookups.push(hostname);
      const address = answers[Math.min(lookups.length - 1, 2)];
      return Promise.resolve([{ address, family: 4 }]);
    };
    worker.context
      .get(WebhookDeliveryService)
      .useSender(
        new WebhookSender({ timeoutMs: 1500, allowPrivate: false, resolver }),
      );
    merchant = await createMerchant(t.app);
  });

  afterAll(async () => {
    canary?.closeAllConnections();
    await new Promise((resolve) => canary?.close(resolve));
    await worker?.close();
    await t?.close();
  });

  it('refuses every attempt once the name resolves to a private address, and never connects', async () => {
    const port = (canary.address() as AddressInfo).port;
    const api = (method: 'get' | 'post', path: string) =>
      request(t.baseUrl)
        [method](path)
        .set('Authorization', `Bearer ${merchant.testKey}`)
        .set('Accept', 'application/vnd.api+json')
        .set('Content-Type', 'application/vnd.api+json');
    // Saved: the name is public-looking, and nothing resolves it at save.
    const webhook = await api('post', '/v1/webhooks')
      .send(
        JSON.stringify({
          data: {
            type: 'webhooks',
            attributes: {
              url: `http://hooks.rebind-test.example.com:${port}/in`,
              events: ['order_created'],
              secret: 'rebinding-secret',
            },
            relationships: {
              store: {
                data: { type: 'stores', id: String(merchant.stores[0].id) },
              },
            },
          },
        }),
      )
      .expect(201);
    const webhookId = webhook.body.data.id as string;

    const { variantId } = await createPricedProduct(
      t.baseUrl,
      merchant.testKey,
      merchant.stores[0].id,
    );
    const checkout = await api('post', '/v1/checkouts')
      .send(
        JSON.stringify({
          data: {
            type: 'checkouts',
            relationships: {
              store: {
                data: { type: 'stores', id: String(merchant.stores[0].id) },
              },
              variant: { data: { type: 'variants', id: variantId } },
            },
          },
        }),
      )
      .expect(201);
    await buy(t.baseUrl, checkout.body.data.attributes.url as string).expect(
      201,
    );

    // The first attempt and both retries run, each resolving anew.
    const deadline = Date.now() + 20_000;
    let delivery: { status: string; attempt_log: Attempt[] } | undefined;
    while (Date.now() < deadline && delivery?.status !== 'failed') {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const deliveries = await api(
        'get',
        `/v1/webhooks/${webhookId}/deliveries`,
      ).expect(200);
      delivery = deliveries.body.data[0]?.attributes;
    }
    const status = delivery?.status;
    const attempts = delivery?.attempt_log ?? [];
    expect(status).toBe('failed');
    expect(lookups).toEqual(Array(3).fill('hooks.rebind-test.example.com'));
    expect(attempts).toHaveLength(3);
    expect(attempts.map((a) => a.error)).toEqual([
      expect.stringMatching(/^Refused: .*127\.0\.0\.1/),
      expect.stringMatching(/^Refused: .*169\.254\.169\.254/),
      expect.stringMatching(/^Refused: .*10\.0\.0\.7/),
    ]);
    expect(attempts.every((a) => a.response_code === null)).toBe(true);
    expect(connections).toBe(0);
  });
});
