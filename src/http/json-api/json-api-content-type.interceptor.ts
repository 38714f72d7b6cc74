import {
  CallHandler,
  ExecutionContext,
  Injectable,
  NestInterceptor,
  SetMetadata,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { FastifyReply } from 'fastify';
import { Observable } from 'rxjs';
import { JSON_API_MEDIA_TYPE } from './document';

export const NOT_JSON_API = 'zest:not-json-api';

/** A route that answers something other than a JSON:API document (plain JSON, HTML, PDF). */
export const NotJsonApi = () => SetMetadata(NOT_JSON_API, true);

/** JSON:API routes answer `application/vnd.api+json`. */
@Injectable()
export class JsonApiContentTypeInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const skip = this.reflector.getAllAndOverride<boolean>(NOT_JSON_API, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!skip) {
      context
        .switchToHttp()
        .getResponse<FastifyReply>()
        .header('content-type', JSON_API_MEDIA_TYPE);
    }
    return next.handle();
  }
}
