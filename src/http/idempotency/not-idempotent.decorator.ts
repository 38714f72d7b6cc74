import { SetMetadata } from '@nestjs/common';

export const NOT_IDEMPOTENT = 'zest:not-idempotent';

/**
 * A POST route that `Idempotency-Key` does not apply to (applyRoutePolicies
 * gives it no IdempotencyInterceptor): the tus creation route, whose
 * protocol has its own retry rules and whose response the interceptor
 * cannot see (the tus server writes it).
 */
export const NotIdempotent = () => SetMetadata(NOT_IDEMPOTENT, true);
