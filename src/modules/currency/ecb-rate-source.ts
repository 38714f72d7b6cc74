import { parseEcbDailyRates } from './ecb-daily-rates';
import {
  MalformedRates,
  RateDay,
  RateSource,
  RateSourceUnavailable,
} from './rate-source';

export { ECB_DAILY_RATES_URL } from '../../config/environment';

/** The real document is about 1.5 KiB; anything this large is not it. */
const MAX_BYTES = 1024 * 1024;

/**
 * The ECB's daily reference rates (`eurofxref-daily.xml`, or a mirror of
 * it at CURRENCY_RATES_URL). The timeout covers the whole exchange, body
 * included.
 */
export class EcbRateSource implements RateSource {
  readonly name: string;

  constructor(
    private readonly url: string,
    private readonly timeoutMs: number,
  ) {
    this.name = `ECB daily rates at ${url}`;
  }

  async fetchLatest(): Promise<RateDay> {
    let body: string;
    try {
      const response = await fetch(this.url, {
        signal: AbortSignal.timeout(this.timeoutMs),
        headers: { accept: 'application/xml, text/xml' },
      });
      if (!response.ok) {
        await response.body?.cancel();
        throw new RateSourceUnavailable(`it answered ${response.status}`);
      }
      body = await readAtMost(response, MAX_BYTES);
    } catch (error) {
      if (error instanceof RateSourceUnavailable) throw error;
      if (error instanceof MalformedRates) throw error;
      const name = (error as Error).name;
      throw new RateSourceUnavailable(
        name === 'TimeoutError'
          ? `no answer within ${this.timeoutMs} ms`
          : (error as Error).message,
      );
    }
    return parseEcbDailyRates(body);
  }
}

async function readAtMost(response: Response, limit: number): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw new MalformedRates(`The document is larger than ${limit} bytes.`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
