import { STATUS_CODES } from 'node:http';
import {
  ArgumentsHost,
  Catch,
  ExceptionFilter,
  HttpException,
  Logger,
} from '@nestjs/common';
import { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ErrorDetail } from '../../common/app-error';
import { JSON_API_MEDIA_TYPE, JSON_API_VERSION } from './document';
import { PlainErrorRoutes } from './plain-error-routes';
import { RouteTable } from './route-table';

interface RenderedError {
  status: number;
  errors: ErrorDetail[];
  headers: Record<string, string>;
}

/** Framework errors that carry a client-error status of their own. */
function statusOf(error: unknown): number | null {
  const status = (error as { statusCode?: unknown; status?: unknown } | null)
    ?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 500
    ? status
    : null;
}

const FRAMEWORK_DETAILS: Record<number, string> = {
  400: 'The request is malformed.',
  413: 'The request body is larger than the 1 MiB limit.',
  415: 'Send the body as application/vnd.api+json or application/json.',
};

/**
 * The only place errors become responses: every 4xx and 5xx leaves as a
 * JSON:API error document with the standard reason phrase as its title.
 * Unexpected errors are logged with the request id and answered with a
 * generic 500 that reveals nothing.
 */
@Catch()
export class JsonApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  constructor(
    private readonly routes: RouteTable,
    private readonly plainErrors: PlainErrorRoutes,
  ) {}

  catch(exception: unknown, host: ArgumentsHost) {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const plain = this.plainErrors.find(request.url);
    if (plain) return plain.catch(exception, host);
    const rendered = this.render(exception, request);
    if (rendered.status >= 500) {
      this.logger.error(
        { err: exception, requestId: request.id },
        'Unhandled error',
      );
    }
    const title = STATUS_CODES[rendered.status] ?? 'Error';
    void reply
      .status(rendered.status)
      .headers(rendered.headers)
      .header('content-type', JSON_API_MEDIA_TYPE)
      .send({
        jsonapi: JSON_API_VERSION,
        errors: rendered.errors.map((error) => ({
          status: String(rendered.status),
          title,
          ...error,
        })),
      });
  }

  private render(exception: unknown, request: FastifyRequest): RenderedError {
    if (exception instanceof AppError) {
      return {
        status: exception.status,
        errors: exception.errors,
        headers: exception.headers,
      };
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      if (status === 404) return this.unmatchedRoute(request);
      if (status === 429) {
        return {
          status,
          errors: [
            {
              detail: 'Too many requests. Retry after the time in Retry-After.',
            },
          ],
          headers: {},
        };
      }
      if (status < 500) {
        return {
          status,
          errors: [{ detail: FRAMEWORK_DETAILS[status] ?? exception.message }],
          headers: {},
        };
      }
    }
    const frameworkStatus = statusOf(exception);
    if (frameworkStatus) {
      const detail =
        exception instanceof SyntaxError || frameworkStatus !== 400
          ? (FRAMEWORK_DETAILS[frameworkStatus] ??
            STATUS_CODES[frameworkStatus] ??
            'Request refused.')
          : (exception as Error).message;
      return { status: frameworkStatus, errors: [{ detail }], headers: {} };
    }
    return {
      status: 500,
      errors: [
        {
          detail:
            'Something went wrong on our side. The error has been logged.',
        },
      ],
      headers: {},
    };
  }

  private unmatchedRoute(request: FastifyRequest): RenderedError {
    const allowed = this.routes.allowedMethods(request.url);
    if (allowed.length > 0) {
      return {
        status: 405,
        errors: [
          {
            detail: `${request.method} is not allowed here. Allowed: ${allowed.join(', ')}.`,
          },
        ],
        headers: { allow: allowed.join(', ') },
      };
    }
    return {
      status: 404,
      errors: [{ detail: 'No route matches this path.' }],
      headers: {},
    };
  }
}
