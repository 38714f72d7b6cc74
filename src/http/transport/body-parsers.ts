import { STATUS_CODES } from 'node:http';
import { parse as parseForm } from 'node:querystring';
import { FastifyAdapter, RouteConfig } from '@nestjs/platform-fastify';
import { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, genericCode } from '../../common/app-error';
import { JSON_API_MEDIA_TYPE, JSON_API_VERSION } from '../json-api/document';
import { recordErrorCodes } from '../errors/error-codes-log';
import { HttpErrorCodes } from '../errors/http-error-codes';

/** Deepest nesting of objects and arrays a body may have; JSON:API needs about 6. */
export const MAX_BODY_DEPTH = 64;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The body as text; bytes that are not UTF-8 are a 400, never silently replaced. */
function decode(body: Buffer): string {
  try {
    return utf8.decode(body);
  } catch {
    throw AppError.badRequest(
      'The request body is not valid UTF-8.',
      undefined,
      HttpErrorCodes.malformedRequest,
    );
  }
}

/**
 * Refuses what no handler should have to guard against: NUL characters
 * (PostgreSQL text cannot hold them), unpaired UTF-16 surrogates (a JSON
 * escape such as "\ud800" that no UTF-8 text can store: PostgreSQL would
 * keep U+FFFD instead, silently altering the value), numbers beyond what a double holds
 * exactly (1e400 parses to Infinity, long integers lose digits) and nesting
 * deeper than MAX_BODY_DEPTH.
 */
export function checkBodyValue(value: unknown, depth = 0): void {
  if (typeof value === 'string') {
    if (value.includes('\u0000'))
      throw AppError.badRequest(
        'The request body contains a NUL character.',
        undefined,
        HttpErrorCodes.malformedRequest,
      );
    if (!value.isWellFormed())
      throw AppError.badRequest(
        'The request body contains an unpaired surrogate (a \\ud800–\\udfff escape without its pair), which is not valid Unicode text.',
        undefined,
        HttpErrorCodes.malformedRequest,
      );
    return;
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || Math.abs(value) > Number.MAX_SAFE_INTEGER)
      throw AppError.badRequest(
        `The request body contains a number out of range (at most ${Number.MAX_SAFE_INTEGER} in magnitude).`,
        undefined,
        HttpErrorCodes.malformedRequest,
      );
    return;
  }
  if (value === null || typeof value !== 'object') return;
  if (depth >= MAX_BODY_DEPTH)
    throw AppError.badRequest(
      `The request body is nested deeper than ${MAX_BODY_DEPTH} levels.`,
      undefined,
      HttpErrorCodes.malformedRequest,
    );
  for (const [key, item] of Object.entries(value)) {
    checkBodyValue(key, depth + 1);
    checkBodyValue(item, depth + 1);
  }
}

/**
 * A route that needs its JSON body exactly as sent, to check a signature
 * over it (Stripe's webhooks): its handler's `@Body()` is the raw bytes (a
 * Buffer, within the body limit), not parsed. Other routes are unaffected.
 */
export const RawJsonBody = (): MethodDecorator =>
  RouteConfig({ rawJsonBody: true });

function wantsRawBody(request: FastifyRequest): boolean {
  return (
    (request.routeOptions?.config as { rawJsonBody?: boolean } | undefined)
      ?.rawJsonBody === true
  );
}

/**
 * The body parsers for JSON:API, JSON and form bodies, registered on the
 * adapter before Nest adds its defaults (which then stand aside). They share
 * the adapter's body limit (413 beyond it) and the checks above (400).
 */
export function installBodyParsers(adapter: FastifyAdapter, bodyLimit: number) {
  const fastify = adapter.getInstance();
  const jsonParser = fastify.getDefaultJsonParser('error', 'error');
  const parseJson = (
    request: FastifyRequest,
    body: Buffer,
    done: (error: Error | null, value?: unknown) => void,
  ) => {
    if (wantsRawBody(request)) return done(null, body);
    let text: string;
    try {
      text = decode(body);
    } catch (error) {
      return done(error as Error);
    }
    // The official SDK sets a JSON:API Content-Type on body-less DELETEs too.
    if (text === '') return done(null, undefined);
    void jsonParser(request, text, (error, value) => {
      if (error) return done(error);
      try {
        checkBodyValue(value);
      } catch (refusal) {
        return done(refusal as Error);
      }
      done(null, value);
    });
  };
  for (const type of [JSON_API_MEDIA_TYPE, 'application/json']) {
    adapter.useBodyParser(type, false, { bodyLimit }, parseJson);
  }
  adapter.useBodyParser(
    'application/x-www-form-urlencoded',
    false,
    { bodyLimit },
    (_request: FastifyRequest, body: Buffer) => {
      // The same parse as Fastify's (fast-querystring mirrors node:querystring);
      // `__proto__` is refused as in a JSON body. node:querystring replaces an
      // escape that is not UTF-8 (`%ED%A0%80`) with U+FFFD; refuse it instead,
      // as raw bytes that are not UTF-8 are refused.
      let malformed = false;
      const parsed = parseForm(decode(body), '&', '=', {
        decodeURIComponent: (piece: string) => {
          try {
            return decodeURIComponent(piece);
          } catch (error) {
            malformed = true;
            throw error;
          }
        },
      });
      if (malformed)
        throw AppError.badRequest(
          'The form body has an escape that is not percent-encoded UTF-8.',
          undefined,
          HttpErrorCodes.malformedRequest,
        );
      if (Object.hasOwn(parsed, '__proto__'))
        throw AppError.badRequest(
          'Object contains forbidden prototype property',
          undefined,
          HttpErrorCodes.malformedRequest,
        );
      const fields: Record<string, unknown> = { ...parsed };
      checkBodyValue(fields);
      return Promise.resolve(fields);
    },
  );
  // tus PATCH bodies (and creation-with-upload): left unread, the tus server
  // streams them from the raw request; no other route takes this type.
  fastify.addContentTypeParser(
    TUS_MEDIA_TYPE,
    (request: FastifyRequest, _payload: unknown, done: ParserDone) => {
      if (!request.url.startsWith(TUS_UPLOADS_PATH))
        return done(unsupportedMediaType(TUS_MEDIA_TYPE));
      done(null, undefined);
    },
  );
}

type ParserDone = (error: Error | null, value?: unknown) => void;

/** The tus protocol's PATCH body type. */
const TUS_MEDIA_TYPE = 'application/offset+octet-stream';
/** FileUploadController's path (the tus server reads the body itself). */
const TUS_UPLOADS_PATH = '/v1/files/uploads';

function unsupportedMediaType(type: string): Error {
  return new AppError(415, {
    detail: `${type} is accepted only by ${TUS_UPLOADS_PATH}.`,
    code: genericCode(415),
  });
}

/**
 * A NUL character in a query parameter (`?filter[email]=%00`) would reach
 * PostgreSQL, which refuses it in text with an error; answer 400 instead.
 */
export function installQueryCheck(fastify: FastifyInstance) {
  fastify.addHook('onRequest', async (request) => {
    const query = request.query as Record<string, unknown> | undefined;
    for (const [name, value] of Object.entries(query ?? {})) {
      const values: unknown[] = Array.isArray(value) ? value : [value];
      if (
        name.includes('\u0000') ||
        values.some((v) => typeof v === 'string' && v.includes('\u0000'))
      ) {
        throw AppError.badRequest(
          'A query parameter contains a NUL character.',
          { parameter: name.replaceAll('\u0000', '') },
          HttpErrorCodes.malformedRequest,
        );
      }
    }
  });
}

/**
 * The router refuses a malformed escape in the path (400) or an over-long
 * path parameter (414) before Nest sees the request; answer those with a
 * JSON:API error document too.
 */
export function frameworkErrorHandler(
  error: { statusCode?: number },
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const status = error.statusCode ?? 400;
  const code =
    status === 400 ? HttpErrorCodes.malformedRequest : genericCode(status);
  recordErrorCodes(request, [code]);
  void reply
    .status(status)
    .header('content-type', JSON_API_MEDIA_TYPE)
    .send(
      JSON.stringify({
        jsonapi: JSON_API_VERSION,
        errors: [
          {
            status: String(status),
            title: STATUS_CODES[status] ?? 'Bad Request',
            detail:
              status === 414
                ? 'A path segment is too long.'
                : 'The request path is not a valid URL (malformed percent-encoding).',
            code,
          },
        ],
      }),
    );
}
