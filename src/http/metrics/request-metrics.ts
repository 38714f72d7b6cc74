import type { FastifyInstance } from 'fastify';
import type { MetricsService } from '../../metrics/metrics.service';

/**
 * Observes every answered request by its route template. `resolve` is called
 * once, at the first response, when the application that owns the registry
 * exists.
 */
export function installRequestMetrics(
  fastify: FastifyInstance,
  resolve: () => MetricsService,
) {
  let metrics: MetricsService | undefined;
  fastify.addHook('onResponse', async (request, reply) => {
    metrics ??= resolve();
    metrics.observeRequest(
      request.method,
      request.routeOptions.url,
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
  });
}
