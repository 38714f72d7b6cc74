import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  eventually,
  spawnZest,
  terminate,
  waitForReady,
  ZestProcess,
} from '../support/processes';
import { freePort, TEST_APP_KEY } from '../support/test-app';

/** `node dist/main.js` at LOG_LEVEL=info on the embedded defaults: its stdout is the log. */
describe('access log', () => {
  let api: ZestProcess;
  let baseUrl: string;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'zest-access-log-'));
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    api = spawnZest('main', {
      NODE_ENV: 'development',
      APP_KEY: TEST_APP_KEY,
      DATA_DIR: dataDir,
      PORT: String(port),
      HEALTH_PORT: String(await freePort()),
      LOG_LEVEL: 'info',
    });
    await waitForReady(api, `${baseUrl}/health/ready`, 60_000);
  }, 90_000);
  afterAll(async () => {
    if (api) await terminate(api);
    rmSync(dataDir, { recursive: true, force: true });
  });

  const lines = () =>
    api
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);

  it('writes one line per answered request with its id, status and time, and no secrets', async () => {
    const token = 'zest_test_notarealkeybutsecretlooking0123456789';
    const response = await fetch(
      `${baseUrl}/v1/stores?signature=s3cr3tsig&expires=1`,
      {
        headers: {
          Authorization: `Bearer ${token}`,
          'X-Request-Id': 'access-log-1',
        },
      },
    );
    expect(response.status).toBe(401);
    expect(response.headers.get('x-request-id')).toBe('access-log-1');
    await fetch(`${baseUrl}/health/live`);

    const line = await eventually(
      () =>
        Promise.resolve(
          lines().find((entry) => entry.reqId === 'access-log-1'),
        ),
      'the access log line',
    );
    expect(line).toMatchObject({
      level: 30,
      msg: 'request completed',
      method: 'GET',
      url: '/v1/stores?signature=[Redacted]&expires=[Redacted]',
      remoteAddress: '127.0.0.1',
      statusCode: 401,
      errorCodes: ['api_key_malformed'],
    });
    expect(typeof line.responseTime).toBe('number');
    // A License API refusal keeps its plain-JSON body; its code is logged.
    const refused = await fetch(`${baseUrl}/v1/licenses/activate`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'X-Request-Id': 'access-log-2',
      },
      body: JSON.stringify({ license_key: 'nope', instance_name: 'laptop' }),
    });
    expect(refused.status).toBe(404);
    expect(await refused.json()).toEqual({
      activated: false,
      error: 'license_key not found',
    });
    const refusal = await eventually(
      () =>
        Promise.resolve(
          lines().find((entry) => entry.reqId === 'access-log-2'),
        ),
      'the License API refusal’s line',
    );
    expect(refusal).toMatchObject({
      statusCode: 404,
      errorCodes: ['license_key_not_found'],
    });
    expect(api.output()).not.toContain(token);
    expect(api.output()).not.toContain('s3cr3tsig');
    // Probes are not logged.
    expect(
      lines().some(
        (entry) =>
          typeof entry.url === 'string' && entry.url.startsWith('/health'),
      ),
    ).toBe(false);
  });
});
