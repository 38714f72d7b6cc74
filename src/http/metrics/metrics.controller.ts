import { Controller, Get, Header, Headers, Inject } from '@nestjs/common';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { metricsAccess } from '../../metrics/metrics-access';
import { MetricsService } from '../../metrics/metrics.service';
import { Public } from '../auth/public.decorator';
import { NotJsonApi } from '../json-api/not-json-api.decorator';
import { RateLimit } from '../rate-limit/rate-limit.decorator';
import { metricsDisabled, metricsUnauthorized } from './metrics.errors';

/**
 * Prometheus scrapes. Not counted against a rate limit: without the token a
 * request costs one constant-time comparison, and with it the caller is the
 * operator's scraper.
 */
@Controller('metrics')
@Public()
@RateLimit('none')
@NotJsonApi()
export class MetricsController {
  constructor(
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get()
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  @Header('Cache-Control', 'no-store')
  async scrape(@Headers('authorization') authorization?: string) {
    const access = metricsAccess(this.config.metricsToken, authorization);
    if (access === 'disabled') throw metricsDisabled();
    if (access === 'unauthorized') throw metricsUnauthorized();
    return (await this.metrics.exposition()).body;
  }
}
