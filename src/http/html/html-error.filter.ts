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
import { JSON_API_MEDIA_TYPE, JSON_API_VERSION } from '../json-api/document';
import { escapeHtml, HTML_PAGE_HEADERS, htmlPage } from './html';

/**
 * For routes that render HTML pages (@UseFilters on the controller): a
 * browser (Accept: text/html) gets a small error page, any other client the
 * usual JSON:API error document. Unexpected errors are logged and answered
 * with a generic 500 that reveals nothing.
 */
@Catch()
export class HtmlErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost) {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    let status = 500;
    let errors: ErrorDetail[] = [
      {
        detail: 'Something went wrong on our side. The error has been logged.',
      },
    ];
    if (exception instanceof AppError) {
      status = exception.status;
      errors = exception.errors;
    } else if (
      exception instanceof HttpException &&
      exception.getStatus() < 500
    ) {
      status = exception.getStatus();
      errors = [{ detail: STATUS_CODES[status] ?? 'Request refused.' }];
    }
    if (status >= 500) {
      this.logger.error(
        { err: exception, requestId: request.id },
        'Unhandled error',
      );
    }
    const title = STATUS_CODES[status] ?? 'Error';
    const accept = request.headers.accept ?? '';
    if (accept.includes('text/html')) {
      const body = `<h1>${escapeHtml(title)}</h1>\n${errors
        .map((error) => `<p class="sub">${escapeHtml(error.detail)}</p>`)
        .join('\n')}`;
      void reply
        .status(status)
        .headers(HTML_PAGE_HEADERS)
        .send(htmlPage(title, body));
      return;
    }
    void reply
      .status(status)
      .header('content-type', JSON_API_MEDIA_TYPE)
      .header('cache-control', 'no-store')
      .send({
        jsonapi: JSON_API_VERSION,
        errors: errors.map((error) => ({
          status: String(status),
          title,
          ...error,
        })),
      });
  }
}
