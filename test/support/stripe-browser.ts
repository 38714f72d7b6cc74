import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { StripeDouble } from './stripe-double/stripe-double';

let standIn: string | undefined;

/**
 * Routes a page's Stripe traffic to the test stand-ins: js.stripe.com's
 * Stripe.js to the stand-in in test/support/stripe-js, and api.stripe.com
 * to the Stripe double (with the CORS header Stripe's API sends). The
 * page's own Content-Security-Policy still applies.
 */
export async function routeStripe(
  page: Page,
  double: StripeDouble,
): Promise<Page> {
  standIn ??= readFileSync(
    join(process.cwd(), 'test/support/stripe-js/stand-in.js'),
    'utf8',
  );
  const script = standIn;
  await page.route('https://js.stripe.com/v3/**', (route) =>
    route.fulfill({
      status: 200,
      contentType: 'application/javascript',
      body: script,
    }),
  );
  await page.route('https://api.stripe.com/**', async (route) => {
    const sent = route.request();
    const target = new URL(sent.url());
    const answer = await fetch(
      `http://127.0.0.1:${double.port}${target.pathname}${target.search}`,
      {
        method: sent.method(),
        headers: { 'content-type': sent.headers()['content-type'] ?? '' },
        body: sent.postData() ?? undefined,
      },
    );
    await route.fulfill({
      status: answer.status,
      headers: {
        'content-type': 'application/json',
        'access-control-allow-origin': '*',
      },
      body: await answer.text(),
    });
  });
  return page;
}
