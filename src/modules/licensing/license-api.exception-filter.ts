import { STATUS_CODES } from 'node:http';
import {
  ArgumentsHost,
  Catch,
  ExceptionFilter,
  HttpException,
  Injectable,
  Logger,
} from '@nestjs/common';
import { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../common/app-error';
import { PlainErrorHandler } from '../../http/json-api/plain-error-routes';
import { LicenseApiError } from './license-api.errors';
import { LicenseOperation, OUTCOME_FLAG } from './license-api.service';

const PATH = /^\/v1\/licenses\/(activate|validate|deactivate)\/?(\?.*)?$/;

/** The License API operation a request URL names, or null for any other path. */
export function licenseOperationOf(url: string): LicenseOperation | null {
  return (PATH.exec(url)?.[1] as LicenseOperation | undefined) ?? null;
}

/** Status, headers and plain-JSON body for any failure on a License API path. */
export function renderLicenseApiError(
  exception: unknown,
  operation: LicenseOperation,
  logger: Logger,
  requestId: string,
): { status: number; headers: Record<string, string>; body: object } {
  if (exception instanceof LicenseApiError) {
    return { status: exception.status, headers: {}, body: exception.body };
  }
  const failed = (status: number, error: string, headers = {}) => ({
    status,
    headers,
    body: { [OUTCOME_FLAG[operation]]: false, error },
  });
  if (exception instanceof AppError) {
    return failed(exception.status, exception.message, exception.headers);
  }
  const status =
    exception instanceof HttpException
      ? exception.getStatus()
      : (exception as { statusCode?: unknown } | null)?.statusCode;
  // Only the three POST paths are ours, so "no route" means a wrong method.
  if (status === 404) {
    return failed(405, 'Use POST for this endpoint.', { allow: 'POST' });
  }
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const error =
      status === 429
        ? 'Too many requests. Retry after the time in Retry-After.'
        : status === 400
          ? 'The request body could not be parsed.'
          : (STATUS_CODES[status] ?? 'Request refused.');
    return failed(status, error);
  }
  logger.error({ err: exception, requestId }, 'Unhandled error');
  return failed(
    500,
    'Something went wrong on our side. The error has been logged.',
  );
}

/**
 * License API routes answer plain JSON even when they fail: the reference's
 * `{activated|valid|deactivated: false, error}` shape, never a JSON:API
 * error document.
 */
@Catch()
@Injectable()
export class LicenseApiExceptionFilter
  implements ExceptionFilter, PlainErrorHandler
{
  private readonly logger = new Logger('LicenseApi');

  matches(url: string): boolean {
    return licenseOperationOf(url) !== null;
  }

  catch(exception: unknown, host: ArgumentsHost) {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const operation = licenseOperationOf(request.url) ?? 'validate';
    const rendered = renderLicenseApiError(
      exception,
      operation,
      this.logger,
      request.id,
    );
    void reply
      .status(rendered.status)
      .headers(rendered.headers)
      .header('content-type', 'application/json; charset=utf-8')
      .send(rendered.body);
  }
}
