import {
  CallHandler,
  ExecutionContext,
  Injectable,
  NestInterceptor,
} from '@nestjs/common';
import { FastifyReply, FastifyRequest } from 'fastify';
import { from, Observable, of, switchMap } from 'rxjs';
import { AuthenticatedRequest } from '../auth/principal';
import {
  ClaimedKey,
  IDEMPOTENCY_HEADER,
  IdempotencyService,
  REPLAYED_HEADER,
  StoredResponse,
} from './idempotency.service';

/** What the interceptor leaves on the request for the `onSend` hook. */
export interface IdempotentRequest {
  idempotency?: ClaimedKey | StoredResponse;
}

/**
 * Claims the Idempotency-Key of an authenticated POST before the handler
 * (and its body validation) runs. The response is stored, or a replay is put
 * in place of the handler's, in Fastify's `onSend` hook
 * (`idempotencyOnSend`), where the final status and serialized body are known.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(private readonly idempotency: IdempotencyService) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context
      .switchToHttp()
      .getRequest<FastifyRequest & AuthenticatedRequest & IdempotentRequest>();
    if (request.method !== 'POST' || !request.principal) return next.handle();
    const key = this.idempotency.parseKey(request.headers[IDEMPOTENCY_HEADER]);
    if (key === null) return next.handle();
    return from(this.idempotency.begin(request.principal, key, request)).pipe(
      switchMap((outcome) => {
        request.idempotency = outcome;
        // The stored response replaces this empty one in `onSend`.
        return outcome.kind === 'replay' ? of(undefined) : next.handle();
      }),
    );
  }
}

/** Fastify `onSend` hook: replay a stored response, or store this one. */
export function idempotencyOnSend(service: () => IdempotencyService) {
  return async (
    request: FastifyRequest,
    reply: FastifyReply,
    payload: unknown,
  ): Promise<unknown> => {
    const state = (request as IdempotentRequest).idempotency;
    if (!state) return payload;
    if (state.kind === 'replay') {
      void reply
        .code(state.status)
        .headers(state.headers)
        .header(REPLAYED_HEADER, 'true');
      return state.body;
    }
    await service().finish(
      state,
      reply.statusCode,
      reply.getHeaders(),
      payload,
    );
    return payload;
  };
}
