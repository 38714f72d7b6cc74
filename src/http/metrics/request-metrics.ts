import type { FastifyInstance } from 'fastify';
import type { MetricsService } from '../../metrics/metrics.service';

/**
 * Observes every answered request by its route template; `metrics` is read
 * at the first response, once the application that owns it exists.
 */
export function installRequestMetrics(
  fastify: FastifyInstance,
  metrics: () => MetricsService,
) {
  fastify.addHook('onResponse', async (request, reply) => {
    metrics().observeRequest(
      request.method,
      request.routeOptions.url,
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
  });
}
