import { runSmoke } from './stripe-smoke-run';

/**
 * `npm run stripe:smoke`: Zest's Stripe gateway against Stripe's test mode
 * with STRIPE_TEST_SECRET_KEY (see stripe-smoke-run.ts); STRIPE_API_BASE
 * points it at another Stripe API (the tests' double). Skipped, exit 0,
 * without the key.
 */
async function main() {
  const secretKey = process.env.STRIPE_TEST_SECRET_KEY;
  if (!secretKey) {
    console.log(
      'stripe:smoke skipped: set STRIPE_TEST_SECRET_KEY (and STRIPE_TEST_PUBLISHABLE_KEY) to a Stripe test-mode account',
    );
    return;
  }
  await runSmoke({
    secretKey,
    publishableKey: process.env.STRIPE_TEST_PUBLISHABLE_KEY || undefined,
    apiBase: process.env.STRIPE_API_BASE || undefined,
    log: (line) => console.log(line),
  });
}

main().catch((error: unknown) => {
  console.error(`✗ ${(error as Error).message}`);
  process.exitCode = 1;
});
