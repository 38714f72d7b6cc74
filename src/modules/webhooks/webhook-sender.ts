import { request as httpRequest, IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
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
}

export interface SenderSettings {
  timeoutMs: number;
  allowPrivate: boolean;
  resolver?: Resolver;
}

/**
 * POSTs one delivery. node:http(s) with a `lookup` that refuses non-public
 * addresses (checked on the address the socket connects to), no redirects
 * (a 3xx is just a non-2xx answer), no connection reuse, and one deadline for
 * connect + request + response status.
 */
export class WebhookSender {
  private readonly resolver: Resolver;

  constructor(private readonly settings: SenderSettings) {
    this.resolver = settings.resolver ?? systemResolver;
  }

  send(options: SendOptions): Promise<SendResult> {
    const started = performance.now();
    const done = (
      responseCode: number | null,
      error: string | null,
    ): SendResult => ({
      responseCode,
      error,
      durationMs: Math.max(0, Math.round(performance.now() - started)),
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
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
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
          agent: false,
          lookup: guardedLookup(this.resolver, this.settings.allowPrivate),
        },
        (response: IncomingMessage) => {
          // The status decides; the body is read and dropped so the socket closes cleanly.
          response.resume();
          response.on('error', () => undefined);
          const code = response.statusCode ?? 0;
          finish(done(code, code >= 200 && code < 300 ? null : `HTTP ${code}`));
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
