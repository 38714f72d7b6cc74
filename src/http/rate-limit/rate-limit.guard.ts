import {
  CanActivate,
  ExecutionContext,
  Inject,
  Injectable,
  Logger,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { FastifyReply, FastifyRequest } from 'fastify';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { AuthenticatedRequest } from '../auth/principal';
import { clientAddressKey } from './client-address';
import { PurchaseLimiter } from './purchase-limiter';
import { RATE_LIMIT_POLICY, RateLimitPolicy } from './rate-limit.decorator';
import { RATE_LIMIT_WINDOW_MS, rateLimited } from './rate-limited';
import { RateLimitStore } from './rate-limit.store';

/**
 * Runs after the API-key guard. Authenticated routes count per API key id
 * (never key material); public routes count as their declared policy says
 * (per client IP: behind TRUST_PROXY, the forwarded address; an IPv6 client
 * by its /64). A public route without a policy does not start
 * (applyRoutePolicies).
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  private readonly logger = new Logger(RateLimitGuard.name);

  constructor(
    private readonly reflector: Reflector,
    private readonly store: RateLimitStore,
    private readonly purchases: PurchaseLimiter,
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
    const reply = http.getResponse<FastifyReply>();
    if (policy === 'purchase') {
      void reply.headers(await this.purchases.admit(request));
      return true;
    }
    let key: string;
    let limit: number;
    if (policy === 'client-ip') {
      key = `ip:${clientAddressKey(request.ip)}`;
      limit = this.config.rateLimit.licensePerMinute;
    } else if (policy === 'page') {
      key = `page:ip:${clientAddressKey(request.ip)}`;
      limit = this.config.rateLimit.pagePerMinute;
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
      throw rateLimited(
        `Rate limit of ${limit} requests per minute exceeded.`,
        hit.resetInMs,
        headers,
      );
    }
    void reply.headers(headers);
    return true;
  }
}
