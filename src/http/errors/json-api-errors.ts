import { STATUS_CODES } from 'node:http';
import { HttpException } from '@nestjs/common';
import { FastifyReply, FastifyRequest } from 'fastify';
import {
  AppError,
  ErrorSource,
  genericCode,
  sourceOf,
} from '../../common/app-error';
import { JSON_API_MEDIA_TYPE, JSON_API_VERSION } from '../json-api/document';
import { RouteTable } from '../json-api/route-table';

/** A JSON:API error object without its status and title. */
export interface WireError {
  detail: string;
  source?: ErrorSource;
  code: string;
}

/** An error as status, JSON:API error objects (without status and title) and headers. */
export interface RenderedError {
  status: number;
  errors: WireError[];
  headers: Record<string, string>;
}

/** A refusal of the HTTP layer itself, with its code. */
function refusal(
  status: number,
  detail: string,
  code: string = genericCode(status),
  headers: Record<string, string> = {},
): RenderedError {
  return { status, errors: [{ detail, code }], headers };
}

export const UNEXPECTED_DETAIL =
  'Something went wrong on our side. The error has been logged.';

/** Framework errors that carry a client-error status of their own. */
function frameworkStatusOf(error: unknown): number | null {
  const status = (error as { statusCode?: unknown; status?: unknown } | null)
    ?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 500
    ? status
    : null;
}

/** The framework refuses with 400 only a body or request it cannot parse. */
const frameworkCode = (status: number) =>
  status === 400 ? 'malformed_request' : genericCode(status);

const FRAMEWORK_DETAILS: Record<number, string> = {
  400: 'The request is malformed.',
  413: 'The request body is larger than the 1 MiB limit.',
  415: 'Send the body as application/vnd.api+json or application/json.',
};

/**
 * Any failure as JSON:API errors. Nest answers a request that matched no
 * route with a NotFoundException; the route table tells an unknown path
 * (404) from a known one with another method (405 with `Allow`).
 */
export function renderJsonApiError(
  exception: unknown,
  request: FastifyRequest,
  routes: RouteTable,
): RenderedError {
  if (exception instanceof AppError) {
    return {
      status: exception.status,
      errors: exception.errors.map((error) => {
        const source = sourceOf(error);
        return source
          ? { detail: error.detail, source, code: error.code }
          : { detail: error.detail, code: error.code };
      }),
      headers: exception.headers,
    };
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    if (status === 404) return unmatchedRoute(request, routes);
    if (status === 429) {
      return refusal(
        status,
        'Too many requests. Retry after the time in Retry-After.',
      );
    }
    if (status < 500) {
      return refusal(
        status,
        FRAMEWORK_DETAILS[status] ?? exception.message,
        frameworkCode(status),
      );
    }
  }
  const frameworkStatus = frameworkStatusOf(exception);
  if (frameworkStatus) {
    const detail =
      exception instanceof SyntaxError || frameworkStatus !== 400
        ? (FRAMEWORK_DETAILS[frameworkStatus] ??
          STATUS_CODES[frameworkStatus] ??
          'Request refused.')
        : (exception as Error).message;
    return refusal(frameworkStatus, detail, frameworkCode(frameworkStatus));
  }
  return refusal(500, UNEXPECTED_DETAIL);
}

function unmatchedRoute(
  request: FastifyRequest,
  routes: RouteTable,
): RenderedError {
  const allowed = routes.allowedMethods(request.url);
  if (allowed.length === 0) {
    return refusal(404, 'No route matches this path.', 'route_not_found');
  }
  return refusal(
    405,
    `${request.method} is not allowed here. Allowed: ${allowed.join(', ')}.`,
    'method_not_allowed',
    { allow: allowed.join(', ') },
  );
}

/** The error document, with the standard reason phrase as each error's title. */
export function sendJsonApiError(
  reply: FastifyReply,
  rendered: RenderedError,
  headers: Record<string, string> = {},
) {
  const title = STATUS_CODES[rendered.status] ?? 'Error';
  void reply
    .status(rendered.status)
    .headers(rendered.headers)
    .header('content-type', JSON_API_MEDIA_TYPE)
    .headers(headers)
    .send({
      jsonapi: JSON_API_VERSION,
      errors: rendered.errors.map((error) => ({
        status: String(rendered.status),
        title,
        ...error,
      })),
    });
}
