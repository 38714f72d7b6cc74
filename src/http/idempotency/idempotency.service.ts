import { createHash, randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { Principal } from '../../common/principal';
import {
  IdempotencyRepository,
  IdempotencyScope,
} from './idempotency.repository';
import { HttpErrorCodes } from '../errors/http-error-codes';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'idempotent-replayed';
/** Stored responses are replayed for this long. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * An in-flight row older than this belongs to a process that died mid-request;
 * a retry with the same body may take it over.
 */
export const ABANDONED_AFTER_MS = 60 * 1000;
const PURGE_BATCH = 1000;
/** Visible ASCII, as Stripe accepts (UUIDs, ULIDs, hashes…). */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
/** Response headers replayed with the stored body. */
const STORED_HEADERS = ['content-type', 'location'];

export interface ClaimedKey {
  kind: 'claimed';
  id: string;
  claim: string;
}

export interface StoredResponse {
  kind: 'replay';
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export interface KeyedRequest {
  method: string;
  url: string;
  body?: unknown;
  headers?: Record<string, string | string[] | undefined>;
}

const source = { header: 'Idempotency-Key' };

/** JSON with sorted object keys, so key order never changes a fingerprint. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Method, path (trailing slash ignored, query kept) and body. A multipart
 * upload's body is streamed by its handler, after the key is claimed, so
 * it stands in by its media type (whose boundary is random per form) and
 * length: a client resending the same bytes is answered with the first
 * response, another upload under the same key gets 422, never the first
 * upload's file.
 */
export function requestFingerprint(request: KeyedRequest): string {
  const [path, query] = request.url.split(/\?(.*)/s, 2);
  const normalized =
    (path.replace(/\/+$/, '') || '/') + (query ? `?${query}` : '');
  const contentType = String(request.headers?.['content-type'] ?? '');
  const body = /^multipart\//i.test(contentType)
    ? `${contentType}\n${String(request.headers?.['content-length'] ?? '')}`
    : canonicalJson(request.body);
  return createHash('sha256')
    .update(`${request.method}\n${normalized}\n${body}`)
    .digest('hex');
}

/**
 * Stripe's Idempotency-Key semantics for authenticated POSTs: the first
 * request with a key runs, and its response (anything but a 5xx) is replayed
 * for every repeat within 24 hours. Keys are scoped by user and mode, so a
 * rotated API key still finds its earlier requests.
 */
@Injectable()
export class IdempotencyService {
  private readonly logger = new Logger(IdempotencyService.name);

  constructor(
    private readonly records: IdempotencyRepository,
    private readonly clock: Clock,
  ) {}

  /** The header value, checked; 400 when it is empty, too long or not visible ASCII. */
  parseKey(header: string | string[] | undefined): string | null {
    if (header === undefined) return null;
    if (typeof header !== 'string' || !KEY_PATTERN.test(header)) {
      throw AppError.badRequest(
        'Idempotency-Key must be 1 to 255 visible ASCII characters.',
        source,
        HttpErrorCodes.idempotencyKeyInvalid,
      );
    }
    return header;
  }

  /**
   * Claims the key for this request, or answers with what a repeat gets: the
   * stored response, 409 while the first is in flight, 422 for another request.
   */
  async begin(
    principal: Principal,
    key: string,
    request: KeyedRequest,
  ): Promise<ClaimedKey | StoredResponse> {
    const scope: IdempotencyScope = {
      userId: principal.userId,
      testMode: principal.testMode,
      key,
    };
    const fingerprint = requestFingerprint(request);
    // Twice at most: the holder may release its row between our two queries.
    for (let attempt = 0; attempt < 2; attempt++) {
      const now = this.clock.now();
      const claim = randomUUID();
      const id = await this.records.claim(
        scope,
        fingerprint,
        claim,
        now,
        new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
        new Date(now.getTime() - ABANDONED_AFTER_MS),
      );
      if (id) return { kind: 'claimed', id, claim };
      const stored = await this.records.find(scope);
      if (!stored) continue;
      if (stored.fingerprint !== fingerprint) {
        throw AppError.unprocessable({
          detail:
            'This Idempotency-Key was already used for a different request (method, path or body). Use a new key.',
          source,
          code: HttpErrorCodes.idempotencyKeyReused,
        });
      }
      if (stored.status === null || !stored.body) {
        throw AppError.conflict(
          'A request with this Idempotency-Key is still being processed. Retry once it has finished.',
          source,
          HttpErrorCodes.idempotencyKeyInProgress,
        );
      }
      return {
        kind: 'replay',
        status: stored.status,
        headers: stored.headers ?? {},
        body: stored.body,
      };
    }
    throw AppError.conflict(
      'A request with this Idempotency-Key is still being processed. Retry once it has finished.',
      source,
      HttpErrorCodes.idempotencyKeyInProgress,
    );
  }

  /**
   * Stores the response of a claimed request for replay. A 5xx is not stored
   * (the row goes, so the client can retry); neither is a streamed body.
   */
  async finish(
    claimed: ClaimedKey,
    status: number,
    headers: Record<string, unknown>,
    payload: unknown,
  ): Promise<void> {
    const body =
      typeof payload === 'string'
        ? Buffer.from(payload)
        : Buffer.isBuffer(payload)
          ? payload
          : payload === undefined || payload === null
            ? Buffer.alloc(0)
            : null;
    try {
      if (status >= 500 || body === null) {
        await this.records.release(claimed.id, claimed.claim);
        return;
      }
      const kept: Record<string, string> = {};
      for (const name of STORED_HEADERS) {
        const value = headers[name];
        if (typeof value === 'string') kept[name] = value;
      }
      await this.records.complete(
        claimed.id,
        claimed.claim,
        status,
        kept,
        body,
      );
    } catch (error) {
      // The response still goes out; the row stays in flight until abandoned.
      this.logger.error(
        { err: error },
        'Could not store the response of an idempotent request',
      );
    }
  }

  /** Deletes expired rows in batches; returns how many went. */
  async purgeExpired(): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await this.records.purgeExpired(
        this.clock.now(),
        PURGE_BATCH,
      );
      total += deleted;
      if (deleted < PURGE_BATCH) return total;
    }
  }
}
