import {
  CanActivate,
  ExecutionContext,
  Inject,
  Injectable,
  Logger,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../common/app-error';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { AuthenticatedRequest } from '../auth/principal';
import { RATE_LIMIT_POLICY, RateLimitPolicy } from './rate-limit.decorator';
import { RateLimitStore } from './rate-limit.store';

export const RATE_LIMIT_WINDOW_MS = 60_000;

/**
 * Runs after the API-key guard. Authenticated routes count per API key id
 * (never key material); a route marked @RateLimit('client-ip') counts per
 * client IP (behind TRUST_PROXY, the forwarded address). Public routes
 * without a policy are not limited.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  private readonly logger = new Logger(RateLimitGuard.name);

  constructor(
    private readonly reflector: Reflector,
    private readonly store: RateLimitStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const policy =
      this.reflector.getAllAndOverride<RateLimitPolicy | undefined>(
        RATE_LIMIT_POLICY,
        [context.getHandler(), context.getClass()],
      ) ?? 'api-key';
    if (policy === 'none') return true;
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest & AuthenticatedRequest>();
    let key: string;
    let limit: number;
    if (policy === 'client-ip') {
      key = `ip:${request.ip}`;
      limit = this.config.rateLimit.licensePerMinute;
    } else {
      if (!request.principal) return true;
      key = `key:${request.principal.apiKeyId}`;
      limit = this.config.rateLimit.perMinute;
    }
    let hit;
    try {
      hit = await this.store.hit(key, RATE_LIMIT_WINDOW_MS, limit);
    } catch (error) {
      // Fail open: an outage of the counter store must not take the API down.
      this.logger.warn(
        { err: error },
        'Rate-limit store unavailable; request not counted',
      );
      return true;
    }
    const remaining = Math.max(0, limit - hit.count);
    const headers = {
      'x-ratelimit-limit': String(limit),
      'x-ratelimit-remaining': String(remaining),
    };
    if (hit.count > limit) {
      throw new AppError(
        429,
        `Rate limit of ${limit} requests per minute exceeded. Retry after the number of seconds in Retry-After.`,
        {
          ...headers,
          'retry-after': String(Math.max(1, Math.ceil(hit.resetInMs / 1000))),
        },
      );
    }
    void http.getResponse<FastifyReply>().headers(headers);
    return true;
  }
}
