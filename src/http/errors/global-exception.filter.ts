import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import { FastifyReply, FastifyRequest } from 'fastify';
import { RouteTable } from '../json-api/route-table';
import { recordErrorCodes } from './error-codes-log';
import { ErrorFormat, errorFormatOf } from './error-format';
import { sendHtmlError } from './html-errors';
import { renderJsonApiError, sendJsonApiError } from './json-api-errors';
import { renderPlainJsonError, sendPlainJsonError } from './plain-json-errors';

/**
 * The only place errors become responses, in the format the route declared
 * with @ErrorFormat (JSON:API unless it says otherwise). Nest calls it for
 * errors in the handler and its guards, and through Fastify's error handler
 * for those raised before (body parsing, onRequest hooks) and for requests
 * that matched no route. Unexpected errors are logged with the request id
 * and answered with a generic 500 that reveals nothing. The codes of every
 * answer go to the request's access-log line.
 */
@Catch()
export class GlobalExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  constructor(private readonly routes: RouteTable) {}

  catch(exception: unknown, host: ArgumentsHost) {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const format = this.formatOf(request);
    let status: number;
    let codes: string[];
    if (format.kind === 'plain-json') {
      const rendered = renderPlainJsonError(
        exception,
        request,
        this.routes,
        format.outcome,
      );
      status = rendered.status;
      codes = [rendered.code];
      sendPlainJsonError(reply, rendered);
    } else {
      const rendered = renderJsonApiError(exception, request, this.routes);
      status = rendered.status;
      codes = rendered.errors.map((error) => error.code);
      if (format.kind === 'html') sendHtmlError(request, reply, rendered);
      else sendJsonApiError(reply, rendered);
    }
    recordErrorCodes(request, codes);
    if (status >= 500) {
      this.logger.error(
        { err: exception, requestId: request.id, errorCodes: codes },
        'Unhandled error',
      );
    }
  }

  /** A request that matched no route takes the format of the path's other methods. */
  private formatOf(request: FastifyRequest): ErrorFormat {
    return request.is404
      ? this.routes.errorFormatAt(request.url)
      : errorFormatOf(request.routeOptions.config);
  }
}
