import request from 'supertest';
import { MetricsService } from '../../src/metrics/metrics.service';
import { createMerchant, Merchant } from '../support/factories';
import {
  eventually,
  spawnZest,
  terminate,
  waitForReady,
  ZestProcess,
} from '../support/processes';
import {
  freePort,
  startTestApp,
  TEST_APP_KEY,
  TestApp,
} from '../support/test-app';
import {
  outboxRecorder,
  startTestWorker,
  startWebhookReceiver,
  subscribeOrderCreated,
  TestWorker,
  WebhookReceiver,
} from '../support/worker';

const TOKEN = 'metrics-token-0123456789abcdef';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The Prometheus text format, one sample per line (comments skipped). */
function parse(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`Not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(
      /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g,
    )) {
      labels[key] = value;
    }
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

function value(
  samples: Sample[],
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  return samples.find(
    (sample) =>
      sample.name === name &&
      Object.entries(labels).every(([k, v]) => sample.labels[k] === v),
  )?.value;
}

describe('metrics', () => {
  let t: TestApp;
  let worker: TestWorker;
  let receiver: WebhookReceiver;
  let merchant: Merchant;

  beforeAll(async () => {
    t = await startTestApp({
      METRICS_TOKEN: TOKEN,
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_RELAY_INTERVAL_MS: '400',
    });
    worker = await startTestWorker(t);
    receiver = await startWebhookReceiver();
    merchant = await createMerchant(t.app);
  });
  afterAll(async () => {
    await worker?.close();
    await t?.close();
    await receiver?.close();
  });

  async function scrape(): Promise<Sample[]> {
    const response = await request(t.baseUrl)
      .get('/metrics')
      .set('Authorization', `Bearer ${TOKEN}`)
      .expect(200);
    expect(response.headers['content-type']).toBe(
      'text/plain; version=0.0.4; charset=utf-8',
    );
    return parse(response.text);
  }

  it('refuses a scrape without the token, or with another one', async () => {
    for (const authorization of [undefined, 'Bearer not-the-token-at-all']) {
      const attempt = request(t.baseUrl).get('/metrics');
      if (authorization) void attempt.set('Authorization', authorization);
      const response = await attempt.expect(401);
      expect(response.headers['www-authenticate']).toBe(
        'Bearer realm="metrics"',
      );
      expect(response.body.errors[0]).toMatchObject({
        status: '401',
        code: 'metrics_token_invalid',
      });
      expect(response.text).not.toContain('zest_');
    }
    // An API key is not a metrics token.
    await request(t.baseUrl)
      .get('/metrics')
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .expect(401);
  });

  it('counts requests by route template and status, never by URL', async () => {
    const store = merchant.stores[0].id;
    const before = await scrape();
    const count = (samples: Sample[], route: string, status: string) =>
      value(samples, 'zest_http_request_duration_seconds_count', {
        method: 'GET',
        route,
        status_code: status,
      }) ?? 0;
    for (let i = 0; i < 3; i++) {
      await request(t.baseUrl)
        .get(`/v1/stores/${store}`)
        .set('Authorization', `Bearer ${merchant.testKey}`)
        .expect(200);
    }
    await request(t.baseUrl)
      .get('/v1/stores/987654321')
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .expect(404);
    await request(t.baseUrl).get('/no/such/path/4242').expect(404);

    const after = await scrape();
    expect(count(after, '/v1/stores/:id', '200')).toBe(
      count(before, '/v1/stores/:id', '200') + 3,
    );
    expect(count(after, '/v1/stores/:id', '404')).toBe(
      count(before, '/v1/stores/:id', '404') + 1,
    );
    expect(count(after, 'unmatched', '404')).toBe(
      count(before, 'unmatched', '404') + 1,
    );
    const routes = new Set(
      after
        .filter((s) => s.name === 'zest_http_request_duration_seconds_count')
        .map((s) => s.labels.route),
    );
    expect([...routes].some((route) => /\d{3,}/.test(route))).toBe(false);
    // Buckets are cumulative up to +Inf, which equals the count.
    expect(
      value(after, 'zest_http_request_duration_seconds_bucket', {
        route: '/v1/stores/:id',
        status_code: '200',
        le: '+Inf',
      }),
    ).toBe(count(after, '/v1/stores/:id', '200'));
  });

  it('reports process, database pool, queue depth and outbox series', async () => {
    const samples = await scrape();
    expect(value(samples, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(value(samples, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expect(
      value(samples, 'zest_db_pool_connections', { state: 'total' }),
    ).toBeGreaterThan(0);
    for (const queue of ['webhook-delivery', 'webhook-relay', 'invoice-pdf']) {
      expect(
        value(samples, 'zest_queue_jobs', { queue, state: 'waiting' }),
      ).toBeGreaterThanOrEqual(0);
    }
    expect(value(samples, 'zest_outbox_lag_seconds')).toBeGreaterThanOrEqual(0);
  });

  it('counts webhook delivery outcomes and finished jobs where the workers run', async () => {
    await subscribeOrderCreated(t, merchant, receiver.url('/hook'), 'secret-1');
    const record = await outboxRecorder(t, merchant);
    await record(1);
    await record(2);
    await eventually(
      () => Promise.resolve(receiver.received.length >= 2 ? true : undefined),
      'two deliveries',
    );
    const metrics = worker.context.get(MetricsService);
    const samples = await eventually(async () => {
      const parsed = parse((await metrics.exposition()).body);
      const finished = value(parsed, 'zest_queue_jobs_total', {
        queue: 'webhook-delivery',
        outcome: 'completed',
      });
      return finished !== undefined && finished >= 2 ? parsed : undefined;
    }, 'the delivery jobs counted');
    expect(
      value(samples, 'zest_webhook_delivery_attempts_total', {
        outcome: 'succeeded',
      }),
    ).toBe(2);
    expect(
      value(samples, 'zest_queue_job_duration_seconds_count', {
        queue: 'webhook-delivery',
      }),
    ).toBeGreaterThanOrEqual(2);
  });

  describe("on the worker's health listener", () => {
    let workerProcess: ZestProcess | undefined;
    let healthPort: number;

    beforeAll(async () => {
      if (!t.config.database.url) return;
      healthPort = await freePort();
      workerProcess = spawnZest('worker', {
        NODE_ENV: 'test',
        DATABASE_URL: t.config.database.url,
        ...(t.config.queue.redisUrl
          ? { REDIS_URL: t.config.queue.redisUrl }
          : {}),
        QUEUE_PREFIX: t.config.queue.prefix,
        APP_KEY: TEST_APP_KEY,
        LOG_LEVEL: 'silent',
        METRICS_TOKEN: TOKEN,
        HEALTH_PORT: String(healthPort),
      });
      await waitForReady(
        workerProcess,
        `http://127.0.0.1:${healthPort}/health/ready`,
        60_000,
      );
    }, 90_000);
    afterAll(async () => {
      if (workerProcess) await terminate(workerProcess);
    });

    it('serves the same series behind the same token (needs DATABASE_URL: the embedded mode has no worker process)', async () => {
      if (!workerProcess) return;
      const url = `http://127.0.0.1:${healthPort}/metrics`;
      const refused = await fetch(url);
      expect(refused.status).toBe(401);
      expect(await refused.text()).not.toContain('zest_');
      const response = await fetch(url, {
        headers: { Authorization: `Bearer ${TOKEN}` },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe(
        'text/plain; version=0.0.4; charset=utf-8',
      );
      const samples = parse(await response.text());
      expect(
        value(samples, 'zest_queue_jobs', {
          queue: 'webhook-delivery',
          state: 'waiting',
        }),
      ).toBeGreaterThanOrEqual(0);
      expect(value(samples, 'process_resident_memory_bytes')).toBeGreaterThan(
        0,
      );
      expect(
        value(samples, 'zest_db_pool_connections', { state: 'total' }),
      ).toBeGreaterThan(0);
    });
  });
});
