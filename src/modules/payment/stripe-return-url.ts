/** Parameters Stripe.js appends to `return_url`; a signature covers the rest. */
const STRIPE_RETURN_PARAMS = new Set([
  'payment_intent',
  'payment_intent_client_secret',
  'setup_intent',
  'setup_intent_client_secret',
  'redirect_status',
]);

/** A request URL without what Stripe.js appended to a signed return URL. */
export function withoutStripeReturnParams(url: string): string {
  const parsed = new URL(url, 'http://return.invalid');
  const kept = new URLSearchParams(
    [...parsed.searchParams].filter(
      ([name]) => !STRIPE_RETURN_PARAMS.has(name),
    ),
  );
  return `${parsed.pathname}?${kept.toString()}`;
}
