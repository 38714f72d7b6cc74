import { lemonSqueezySetup } from '@lemonsqueezy/lemonsqueezy.js';

const LEMON_SQUEEZY = 'https://api.lemonsqueezy.com';

/**
 * Points the official SDK at the server under test. Its base URL is fixed,
 * so `fetch` is wrapped to rewrite that origin; everything else is the
 * unmodified SDK.
 */
export function useSdkAgainst(baseUrl: string, apiKey: string): () => void {
  const realFetch = globalThis.fetch;
  globalThis.fetch = (input: string | URL | Request, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    return realFetch(url.replace(LEMON_SQUEEZY, baseUrl), init);
  };
  lemonSqueezySetup({ apiKey, onError: () => undefined });
  return () => {
    globalThis.fetch = realFetch;
  };
}
