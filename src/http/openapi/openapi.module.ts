import { DynamicModule, Module } from '@nestjs/common';
import { OPENAPI_CONTRIBUTIONS } from './openapi-contribution';
import type { OpenApiContribution } from './openapi-contribution';
import { OpenApiController } from './openapi.controller';
import { OpenApiService } from './openapi.service';

/** GET /v1/openapi.json and the /docs reference page. */
@Module({})
export class OpenApiModule {
  static forRoot(contributions: OpenApiContribution[]): DynamicModule {
    return {
      module: OpenApiModule,
      controllers: [OpenApiController],
      providers: [
        { provide: OPENAPI_CONTRIBUTIONS, useValue: contributions },
        OpenApiService,
      ],
      exports: [OpenApiService],
    };
  }
}
