import {
  Body,
  Controller,
  HttpCode,
  Injectable,
  Module,
  Post,
  Query,
} from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { AppError } from '../../src/common/app-error';
import type { Principal } from '../../src/common/principal';
import type { WriteDocument } from '../../src/common/write-document';
import { CurrentPrincipal } from '../../src/http/auth/principal';
import { Public } from '../../src/http/auth/public.decorator';
import { NotJsonApi } from '../../src/http/json-api/not-json-api.decorator';
import { JsonApiBody } from '../../src/http/json-api/write-document';
import { RateLimit } from '../../src/http/rate-limit/rate-limit.decorator';

class EchoAttributes {
  @IsString()
  message: string;

  /** `client` → 422 after running, `server` → 500. */
  @IsOptional()
  @IsString()
  fail?: string;
}

/** How many times each handler really ran (a replay does not run it). */
@Injectable()
export class Executions {
  echoes = 0;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Test-only routes, mounted only by tests through `startTestApp(env, {
 * modules: [TestRoutesModule] })`: production has no POST route of its own
 * yet, and the License API comes later.
 */
@Controller()
@ApiExcludeController()
export class TestRoutesController {
  constructor(private readonly executions: Executions) {}

  /** An authenticated JSON:API POST, slow on demand (`?delay=ms`). */
  @Post('v1/test-echoes')
  async echo(
    @CurrentPrincipal() principal: Principal,
    @JsonApiBody({ type: 'test-echoes', attributes: EchoAttributes })
    document: WriteDocument<EchoAttributes>,
    @Query('delay') delay?: string,
  ) {
    this.executions.echoes += 1;
    const run = this.executions.echoes;
    if (delay) await sleep(Number(delay));
    if (document.attributes.fail === 'client')
      throw AppError.attribute('fail', 'Refused on purpose.');
    if (document.attributes.fail === 'server')
      throw new Error('failed on purpose');
    return {
      jsonapi: { version: '1.0' },
      data: {
        type: 'test-echoes',
        id: String(run),
        attributes: {
          message: document.attributes.message,
          user_id: principal.userId,
        },
      },
    };
  }

  /** Shaped like the public License API: no key, plain JSON, limited per IP. */
  @Post('v1/licenses/test-validate')
  @Public()
  @NotJsonApi()
  @RateLimit('client-ip')
  @HttpCode(200)
  validate(@Body() body: { license_key?: string }) {
    return {
      valid: false,
      error: 'test route',
      license_key: body?.license_key ?? null,
    };
  }
}

@Module({ controllers: [TestRoutesController], providers: [Executions] })
export class TestRoutesModule {}
