import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { runSmoke } from '../../bench/stripe-smoke-run';
import { StripeDouble } from '../support/stripe-double/stripe-double';

const run = promisify(execFile);

/**
 * `npm run stripe:smoke` (issue 25) cannot reach Stripe here: its steps
 * run against the Stripe double instead (STRIPE_API_BASE), so the script
 * itself is known to work; and without a key it skips with exit 0.
 */
describe('the Stripe smoke script', () => {
  let double: StripeDouble;

  beforeAll(async () => {
    double = await new StripeDouble().start();
    // What `npm run stripe:smoke` compiles before it runs.
    await run(process.execPath, [
      'node_modules/typescript/bin/tsc',
      '-p',
      'bench/tsconfig.json',
    ]);
  }, 300_000);
  afterAll(() => double.stop());

  it('buys, renews off session and refunds through Zest’s Stripe gateway', async () => {
    const lines: string[] = [];
    const secretKey = 'sk_test_51SmokeAbCdEfGhIjKlMnOpQr';
    await runSmoke({
      secretKey,
      publishableKey: 'pk_test_51SmokeAbCdEfGhIjKlMnOpQr',
      apiBase: `http://127.0.0.1:${double.port}`,
      log: (line) => lines.push(line),
    });
    expect(lines.at(-1)).toBe('Stripe smoke test passed.');
    expect(lines.filter((line) => line.startsWith('✓'))).toHaveLength(6);
    const intents = double.list(secretKey, 'payment_intent');
    // The purchase and one renewal (its replay found the first).
    expect(intents.map((i) => i.status)).toEqual(['succeeded', 'succeeded']);
    expect(intents[1]).toMatchObject({
      amount: 1999,
      customer: intents[0].customer,
    });
    expect(double.list(secretKey, 'refund')).toHaveLength(1);
  });

  it('refuses a live key', async () => {
    await expect(
      runSmoke({
        secretKey: 'sk_live_51SmokeAbCdEfGhIjKlMnOpQr',
        log: () => undefined,
      }),
    ).rejects.toThrow('test-mode key');
  });

  it('runs as `npm run stripe:smoke` runs it, printing each step', async () => {
    const { stdout } = await run(
      process.execPath,
      ['dist-bench/bench/stripe-smoke.js'],
      {
        env: {
          ...process.env,
          STRIPE_TEST_SECRET_KEY: 'sk_test_51SmokeCliAbCdEfGhIjKlMnOpQr',
          STRIPE_TEST_PUBLISHABLE_KEY: 'pk_test_51SmokeCliAbCdEfGhIjKlMnOpQr',
          STRIPE_API_BASE: `http://127.0.0.1:${double.port}`,
        },
      },
    );
    expect(stdout).toContain('✓ renewal charged off session');
    expect(stdout.trim().split('\n').at(-1)).toBe('Stripe smoke test passed.');
  });

  it('skips with exit 0 and says why without STRIPE_TEST_SECRET_KEY', async () => {
    const { stdout } = await run(
      process.execPath,
      ['dist-bench/bench/stripe-smoke.js'],
      { env: { ...process.env, STRIPE_TEST_SECRET_KEY: '' } },
    );
    expect(stdout).toContain('skipped: set STRIPE_TEST_SECRET_KEY');
  });
});
