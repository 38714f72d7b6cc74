/** The VIES client, provided only with TAX_VAT_VALIDATION=online. */
export const VIES_CLIENT = Symbol('VIES_CLIENT');

/**
 * What VIES said of a VAT number: `valid`/`invalid` as registered or not,
 * `unavailable` when it did not answer in time, answered an error status, or
 * said the member state's register is down (`MS_UNAVAILABLE`, …).
 */
export type ViesAnswer = 'valid' | 'invalid' | 'unavailable';

/** The VIES REST API's answer to `POST /check-vat-number`, as far as read. */
interface ViesResponse {
  valid?: unknown;
  userError?: unknown;
}

/** Answers kept for a day (valid) or an hour (invalid); outages are not kept. */
const VALID_TTL_MS = 24 * 60 * 60 * 1000;
const INVALID_TTL_MS = 60 * 60 * 1000;
const MAX_ENTRIES = 10_000;

/**
 * The European Commission's VIES REST API (`TAX_VIES_URL`, default
 * `https://ec.europa.eu/taxation_customs/vies/rest-api`): `POST
 * /check-vat-number` with `{countryCode, vatNumber}` answers `{valid}`.
 * Never called inside a database transaction: the purchase asks before its
 * transaction starts. Answers are cached in the process.
 */
export class ViesClient {
  private readonly cache = new Map<
    string,
    { answer: ViesAnswer; until: number }
  >();

  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** `number` normalised, with its country prefix (`DE136695976`; Greece `EL…`). */
  async check(number: string): Promise<ViesAnswer> {
    const cached = this.cache.get(number);
    if (cached && cached.until > this.now()) return cached.answer;
    const answer = await this.ask(number);
    if (answer !== 'unavailable') {
      if (this.cache.size >= MAX_ENTRIES) this.cache.clear();
      this.cache.set(number, {
        answer,
        until:
          this.now() + (answer === 'valid' ? VALID_TTL_MS : INVALID_TTL_MS),
      });
    }
    return answer;
  }

  private async ask(number: string): Promise<ViesAnswer> {
    try {
      const response = await fetch(`${this.baseUrl}/check-vat-number`, {
        method: 'POST',
        signal: AbortSignal.timeout(this.timeoutMs),
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
        },
        body: JSON.stringify({
          countryCode: number.slice(0, 2),
          vatNumber: number.slice(2),
        }),
      });
      if (!response.ok) {
        await response.body?.cancel();
        return 'unavailable';
      }
      const body = (await response.json()) as ViesResponse;
      if (typeof body.userError === 'string' && body.userError !== 'VALID') {
        return body.userError === 'INVALID' ? 'invalid' : 'unavailable';
      }
      if (typeof body.valid !== 'boolean') return 'unavailable';
      return body.valid ? 'valid' : 'invalid';
    } catch {
      // A timeout, a refused connection, a body that is not JSON.
      return 'unavailable';
    }
  }
}
