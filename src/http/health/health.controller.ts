import { Controller, Get } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import { Public } from '../auth/public.decorator';
import { NotJsonApi } from '../json-api/not-json-api.decorator';
import { RateLimit } from '../rate-limit/rate-limit.decorator';
import { HealthService } from './health.service';
import { HttpErrorCodes } from '../errors/http-error-codes';

/** Probes from load balancers and orchestrators: never limited. */
@Controller('health')
@Public()
@RateLimit('none')
@NotJsonApi()
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get('live')
  live() {
    return { status: 'ok' };
  }

  @Get('ready')
  async ready() {
    const readiness = await this.health.readiness();
    if (!readiness.ready) {
      const down = Object.entries(readiness.checks)
        .filter(([, check]) => check.status === 'down')
        .map(([name, check]) => `${name}: ${check.message ?? 'down'}`);
      throw new AppError(503, {
        detail: `Not ready (${down.join('; ')}).`,
        code: HttpErrorCodes.notReady,
      });
    }
    return { status: 'ok', checks: readiness.checks };
  }
}
