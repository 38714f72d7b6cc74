import {
  Agent as HttpAgent,
  request as httpRequest,
  IncomingMessage,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import {
  checkWebhookUrl,
  guardedLookup,
  Resolver,
  systemResolver,
  WebhookUrlRefused,
} from './webhook-url';

export interface SendOptions {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Live mode: https only. */
  requireHttps: boolean;
}

export interface SendResult {
  /** The response status, or null when none arrived (refused, network error, timeout). */
  responseCode: number | null;
  /** Why no 2xx arrived, for the delivery log; never contains the secret. */
  error: string | null;
  durationMs: number;
  /** A 429 or 503's Retry-After, in ms (at most an hour), or null. */
  retryAfterMs: number | null;
}

const MAX_RETRY_AFTER_MS = 3_600_000;
/** The date format senders must use, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`. */
const IMF_FIXDATE =
  /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/** Retry-After as delay-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfter(
  value: string | string[] | undefined,
  now = Date.now(),
): number | null {
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  let ms: number;
  if (/^\d+$/.test(trimmed)) ms = Number(trimmed) * 1000;
  else if (IMF_FIXDATE.test(trimmed)) ms = Date.parse(trimmed) - now;
  else return null;
  if (!Number.isFinite(ms)) return null;
  return Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
}

export interface SenderSettings {
  timeoutMs: number;
  allowPrivate: boolean;
  resolver?: Resolver;
}

/** Idle connections are closed before a receiver's usual keep-alive timeout (Node: 5 s). */
const IDLE_SOCKET_MS = 4000;

/**
 * POSTs one delivery. node:http(s) with a `lookup` that refuses non-public
 * addresses (checked on the address each new connection goes to), no
 * redirects (a 3xx is just a non-2xx answer), and one deadline for connect +
 * request + response status. Connections are kept alive and reused per
 * host and port: a reused socket is one whose address was checked when it
 * connected, and a busy receiver then costs no handshake per delivery.
 */
export class WebhookSender {
  private readonly resolver: Resolver;
  private readonly agents: { http: HttpAgent; https: HttpsAgent };

  constructor(private readonly settings: SenderSettings) {
    this.resolver = settings.resolver ?? systemResolver;
    const options = {
      keepAlive: true,
      timeout: IDLE_SOCKET_MS,
      scheduling: 'lifo' as const,
      lookup: guardedLookup(this.resolver, settings.allowPrivate),
    };
    this.agents = {
      http: new HttpAgent(options),
      https: new HttpsAgent(options),
    };
  }

  /** Closes idle connections (worker shutdown, tests). */
  close() {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  send(options: SendOptions): Promise<SendResult> {
    const started = performance.now();
    const done = (
      responseCode: number | null,
      error: string | null,
      retryAfterMs: number | null = null,
    ): SendResult => ({
      responseCode,
      error,
      durationMs: Math.max(0, Math.round(performance.now() - started)),
      retryAfterMs,
    });
    let url: URL;
    try {
      url = checkWebhookUrl(options.url, {
        requireHttps: options.requireHttps,
        allowPrivate: this.settings.allowPrivate,
      });
    } catch (error) {
      return Promise.resolve(
        done(null, `Refused: ${(error as Error).message}`),
      );
    }
    const https = url.protocol === 'https:';
    const request = https ? httpsRequest : httpRequest;
    return new Promise<SendResult>((resolve) => {
      let settled = false;
      const finish = (result: SendResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      const req = request(
        url,
        {
          method: 'POST',
          headers: {
            ...options.headers,
            'Content-Length': String(Buffer.byteLength(options.body)),
            'User-Agent': 'Zest-Webhooks/1.0',
          },
          agent: https ? this.agents.https : this.agents.http,
        },
        (response: IncomingMessage) => {
          // The status decides; the body is read and dropped so the socket closes cleanly.
          response.resume();
          response.on('error', () => undefined);
          const code = response.statusCode ?? 0;
          const retryAfter =
            code === 429 || code === 503
              ? parseRetryAfter(response.headers['retry-after'])
              : null;
          finish(
            done(
              code,
              code >= 200 && code < 300 ? null : `HTTP ${code}`,
              retryAfter,
            ),
          );
        },
      );
      const timer = setTimeout(() => {
        finish(done(null, `Timed out after ${this.settings.timeoutMs} ms`));
        req.destroy();
      }, this.settings.timeoutMs);
      req.on('error', (error: NodeJS.ErrnoException) => {
        const reason =
          error instanceof WebhookUrlRefused
            ? `Refused: ${error.message}`
            : `${error.code ?? 'Error'}: ${error.message}`;
        finish(done(null, reason));
      });
      req.end(options.body);
    });
  }
}
