import type { FastifyRequest } from 'fastify';

const codes = new WeakMap<FastifyRequest, string[]>();

/** Keeps the codes a failed request was answered with, for its access-log line. */
export function recordErrorCodes(request: FastifyRequest, list: string[]) {
  codes.set(request, [...new Set(list)]);
}

/** The codes a request was answered with, if it failed. */
export function errorCodesOf(request: FastifyRequest): string[] | undefined {
  return codes.get(request);
}
