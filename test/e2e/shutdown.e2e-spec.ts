import { Agent, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { createMerchant } from '../support/factories';
import { eventually } from '../support/processes';
import { startTestApp } from '../support/test-app';
import { Executions, TestRoutesModule } from '../support/test-routes.module';

/** Fastify's keep-alive timeout: what a lingering idle connection would cost. */
const KEEP_ALIVE_TIMEOUT_MS = 72_000;

describe('API shutdown', () => {
  it('finishes a request in flight, then closes its keep-alive connection instead of waiting out its timeout', async () => {
    const t = await startTestApp({}, { modules: [TestRoutesModule] });
    const merchant = await createMerchant(t.app);
    const executions = t.app.get(Executions);
    const agent = new Agent({ keepAlive: true });
    const before = executions.echoes;

    const response = new Promise<{ status: number; body: string }>(
      (resolve, reject) => {
        const body = JSON.stringify({
          data: { type: 'test-echoes', attributes: { message: 'last' } },
        });
        const call = httpRequest(
          `${t.baseUrl}/v1/test-echoes?delay=1000`,
          {
            method: 'POST',
            agent,
            headers: {
              Authorization: `Bearer ${merchant.testKey}`,
              'Content-Type': 'application/vnd.api+json',
              'Content-Length': Buffer.byteLength(body),
            },
          },
          (res) => {
            let text = '';
            res.on('data', (chunk: Buffer) => (text += chunk.toString()));
            res.on('end', () =>
              resolve({ status: res.statusCode!, body: text }),
            );
          },
        );
        call.on('error', reject);
        call.end(body);
      },
    );
    // The handler is running (it sleeps a second before answering).
    await eventually(
      () => Promise.resolve(executions.echoes > before ? true : undefined),
      'the request to reach its handler',
    );

    const started = Date.now();
    await t.close();
    const closedAfterMs = Date.now() - started;

    const answered = await response;
    expect(answered.status).toBe(201);
    expect(answered.body).toContain('"last"');
    expect(closedAfterMs).toBeLessThan(KEEP_ALIVE_TIMEOUT_MS / 4);
    agent.destroy();
  }, 120_000);
  it('closes a connection that never sent a request instead of waiting for it', async () => {
    const t = await startTestApp();
    const { port } = new URL(t.baseUrl);
    // A preconnect: the TCP connection is open, no byte of a request sent.
    const silent = connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => silent.once('connect', resolve));
    const closedByServer = new Promise((resolve) =>
      silent.once('close', resolve),
    );

    const started = Date.now();
    await t.close();
    expect(Date.now() - started).toBeLessThan(KEEP_ALIVE_TIMEOUT_MS / 4);
    await closedByServer;
  }, 120_000);
});
