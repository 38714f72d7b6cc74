import { STATUS_CODES } from 'node:http';
import { HttpException } from '@nestjs/common';
import { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, genericCode } from '../../common/app-error';
import { PlainJsonError } from '../../common/plain-json-error';
import { RouteTable } from '../json-api/route-table';
import { UNEXPECTED_DETAIL } from './json-api-errors';

interface PlainRendered {
  status: number;
  /** For the log only: the body has no place for it. */
  code: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/**
 * Any failure on a plain-JSON route as `{<outcome>: false, error}` (the
 * License API's shape in the reference), never a JSON:API document.
 */
export function renderPlainJsonError(
  exception: unknown,
  request: FastifyRequest,
  routes: RouteTable,
  outcome: string,
): PlainRendered {
  if (exception instanceof PlainJsonError) {
    return {
      status: exception.status,
      code: exception.code,
      headers: {},
      body: exception.body,
    };
  }
  const failed = (
    status: number,
    error: string,
    headers: Record<string, string> = {},
    code = genericCode(status),
  ) => ({ status, code, headers, body: { [outcome]: false, error } });
  if (exception instanceof AppError) {
    return failed(
      exception.status,
      exception.message,
      exception.headers,
      exception.errors[0].code,
    );
  }
  const status =
    exception instanceof HttpException
      ? exception.getStatus()
      : (exception as { statusCode?: unknown } | null)?.statusCode;
  if (status === 404) {
    // This format is only chosen at a path a route serves: a wrong method.
    const allowed = routes.allowedMethods(request.url);
    return failed(405, `Use ${allowed.join(' or ')} for this endpoint.`, {
      allow: allowed.join(', '),
    });
  }
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const error =
      status === 429
        ? 'Too many requests. Retry after the time in Retry-After.'
        : status === 400
          ? 'The request body could not be parsed.'
          : (STATUS_CODES[status] ?? 'Request refused.');
    return failed(
      status,
      error,
      {},
      status === 400 ? 'malformed_request' : genericCode(status),
    );
  }
  return failed(500, UNEXPECTED_DETAIL);
}

export function sendPlainJsonError(
  reply: FastifyReply,
  rendered: PlainRendered,
) {
  void reply
    .status(rendered.status)
    .headers(rendered.headers)
    .header('content-type', 'application/json; charset=utf-8')
    .send(rendered.body);
}
