import { CallHandler, ExecutionContext, NestInterceptor } from '@nestjs/common';
import { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { from, Observable, of, switchMap } from 'rxjs';
import { AuthenticatedRequest } from '../auth/principal';
import {
  ClaimedKey,
  IDEMPOTENCY_HEADER,
  IdempotencyService,
  REPLAYED_HEADER,
  StoredResponse,
} from './idempotency.service';

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's Idempotency-Key store (see installIdempotency). */
    idempotency: IdempotencyService | null;
  }
}

/** What the interceptor leaves on the request for the `onSend` hook. */
export interface IdempotentRequest {
  idempotency?: ClaimedKey | StoredResponse;
}

/**
 * Installs Idempotency-Key handling on a Fastify instance: the `onSend`
 * hook below, and the store the interceptor finds through `request.server`
 * (the interceptor is one object shared by every app in the process, see
 * applyRoutePolicies; the store belongs to the app).
 */
export function installIdempotency(fastify: FastifyInstance) {
  fastify.decorate('idempotency', null);
  fastify.addHook('onSend', idempotencyOnSend);
}

/**
 * Claims the Idempotency-Key of an authenticated POST before the handler
 * (and its body validation) runs. The response is stored, or a replay is put
 * in place of the handler's, in Fastify's `onSend` hook, where the final
 * status and serialized body are known.
 */
export class IdempotencyInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context
      .switchToHttp()
      .getRequest<FastifyRequest & AuthenticatedRequest & IdempotentRequest>();
    const service = request.server.idempotency;
    if (!request.principal || !service) return next.handle();
    const key = service.parseKey(request.headers[IDEMPOTENCY_HEADER]);
    if (key === null) return next.handle();
    return from(service.begin(request.principal, key, request)).pipe(
      switchMap((outcome) => {
        request.idempotency = outcome;
        // The stored response replaces this empty one in `onSend`.
        return outcome.kind === 'replay' ? of(undefined) : next.handle();
      }),
    );
  }
}

/** Fastify `onSend` hook: replay a stored response, or store this one. */
async function idempotencyOnSend(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
): Promise<unknown> {
  const state = (request as IdempotentRequest).idempotency;
  const service = request.server.idempotency;
  if (!state || !service) return payload;
  if (state.kind === 'replay') {
    void reply
      .code(state.status)
      .headers(state.headers)
      .header(REPLAYED_HEADER, 'true');
    return state.body;
  }
  await service.finish(state, reply.statusCode, reply.getHeaders(), payload);
  return payload;
}
