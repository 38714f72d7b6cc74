import request from 'supertest';
import { pathOf } from './commerce';
import { updateStore } from './factories';
import { StripeDouble } from './stripe-double/stripe-double';

/** Stripe keys of a store in a mode (the double pairs pk_X with sk_X). */
export function stripeKeys(name: string, mode: 'test' | 'live' = 'test') {
  const suffix = `51${name}AbCdEfGhIjKlMnOpQr`;
  return {
    secret_key: `sk_${mode}_${suffix}`,
    publishable_key: `pk_${mode}_${suffix}`,
    webhook_secret: `whsec_${name}0123456789abcdefABCD`,
  };
}

/** Connects a store to Stripe, in the mode of `apiKey` and of the keys, over the API. */
export async function connectStripe(
  baseUrl: string,
  apiKey: string,
  storeId: number,
  keys: ReturnType<typeof stripeKeys>,
) {
  await updateStore(baseUrl, apiKey, storeId, { stripe: keys }).expect(200);
}

/** The hosted page of a Stripe store: its HTML, CSP and submission token. */
export async function stripePage(baseUrl: string, pageUrl: string) {
  const page = await request(baseUrl).get(pathOf(pageUrl)).expect(200);
  const html = page.text;
  const token = /name="submission" value="([^"]+)"/.exec(html)?.[1];
  if (!token) throw new Error('The page has no submission token');
  return {
    html,
    csp: String(page.headers['content-security-policy']),
    token,
  };
}

export interface IntentAnswer {
  intent_type: 'payment' | 'setup';
  client_secret: string;
  return_url: string;
}

/** What the page's script posts: the form's flat fields, as JSON, with the token. */
export function submitStripe(
  baseUrl: string,
  pageUrl: string,
  token: string,
  fields: Record<string, string> = {},
) {
  return request(baseUrl)
    .post(pathOf(pageUrl))
    .set('Content-Type', 'application/json')
    .send({
      submission: token,
      email: 'stripe-buyer@example.com',
      name: 'Stella Buyer',
      'billing_address[country]': 'US',
      'billing_address[zip]': '10001',
      ...fields,
    });
}

export const intentIdOf = (clientSecret: string) =>
  clientSecret.slice(0, clientSecret.indexOf('_secret_'));

/**
 * What Stripe.js does in the browser: confirms the intent with the card
 * typed into the Payment Element, with the publishable key.
 */
export async function confirmInBrowser(
  double: StripeDouble,
  publishableKey: string,
  answer: IntentAnswer,
  cardNumber: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const id = intentIdOf(answer.client_secret);
  const resource =
    answer.intent_type === 'setup' ? 'setup_intents' : 'payment_intents';
  const body = new URLSearchParams({
    key: publishableKey,
    client_secret: answer.client_secret,
    'payment_method_data[type]': 'card',
    'payment_method_data[card][number]': cardNumber,
    return_url: answer.return_url,
  });
  const response = await fetch(
    `http://127.0.0.1:${double.port}/v1/${resource}/${id}/confirm`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
    },
  );
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
  };
}

/** The 3-D Secure challenge frame, completed or abandoned. */
export async function answerChallenge(
  double: StripeDouble,
  publishableKey: string,
  answer: IntentAnswer,
  result: 'complete' | 'fail',
) {
  const id = intentIdOf(answer.client_secret);
  const resource =
    answer.intent_type === 'setup' ? 'setup_intents' : 'payment_intents';
  const response = await fetch(
    `http://127.0.0.1:${double.port}/v1/${resource}/${id}/three_d_secure`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        key: publishableKey,
        client_secret: answer.client_secret,
        result,
      }),
    },
  );
  return response.status;
}

/** The return route as Stripe.js calls it, with its appended parameters. */
export function returnFromStripe(baseUrl: string, answer: IntentAnswer) {
  const prefix =
    answer.intent_type === 'setup' ? 'setup_intent' : 'payment_intent';
  const url = new URL(answer.return_url);
  url.searchParams.set(prefix, intentIdOf(answer.client_secret));
  url.searchParams.set(`${prefix}_client_secret`, answer.client_secret);
  url.searchParams.set('redirect_status', 'succeeded');
  return request(baseUrl).get(url.pathname + url.search);
}
