import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { Public } from '../../http/auth/public.decorator';
import { ErrorFormat } from '../../http/errors/error-format';
import { NotJsonApi } from '../../http/json-api/not-json-api.decorator';
import { RateLimit } from '../../http/rate-limit/rate-limit.decorator';
import { licenseField } from './license-api.dto';
import { LicenseApiService, OUTCOME_FLAG } from './license-api.service';

/**
 * /v1/licenses/*: used by end-user applications with the key alone. Bodies
 * come as form fields or JSON; an Authorization header is ignored. Limited
 * per client IP (LICENSE_RATE_LIMIT_PER_MINUTE, 60 by default).
 */
@Controller('v1/licenses')
@Public()
@RateLimit('client-ip')
@NotJsonApi()
export class LicenseApiController {
  constructor(private readonly licenses: LicenseApiService) {}

  @Post('activate')
  @HttpCode(200)
  @ErrorFormat({ kind: 'plain-json', outcome: OUTCOME_FLAG.activate })
  activate(@Body() body: unknown) {
    return this.licenses.activate({
      licenseKey: licenseField('activate', body, 'license_key', true),
      instanceName: licenseField('activate', body, 'instance_name', true),
    });
  }

  @Post('validate')
  @HttpCode(200)
  @ErrorFormat({ kind: 'plain-json', outcome: OUTCOME_FLAG.validate })
  validate(@Body() body: unknown) {
    return this.licenses.validate({
      licenseKey: licenseField('validate', body, 'license_key', true),
      instanceId: licenseField('validate', body, 'instance_id', false),
    });
  }

  @Post('deactivate')
  @HttpCode(200)
  @ErrorFormat({ kind: 'plain-json', outcome: OUTCOME_FLAG.deactivate })
  deactivate(@Body() body: unknown) {
    return this.licenses.deactivate({
      licenseKey: licenseField('deactivate', body, 'license_key', true),
      instanceId: licenseField('deactivate', body, 'instance_id', true),
    });
  }
}
