import { DynamicModule, Module, Type } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { AppConfig } from '../config/app-config';
import { DatabaseConnection } from '../database/database-connection';
import { ApiKeyGuard } from '../http/auth/api-key.guard';
import { GlobalExceptionFilter } from '../http/errors/global-exception.filter';
import { HealthController } from '../http/health/health.controller';
import { MetricsController } from '../http/metrics/metrics.controller';
import { IdempotencyModule } from '../http/idempotency/idempotency.module';
import { OpenApiModule } from '../http/openapi/openapi.module';
import { RelationshipController } from '../http/json-api/relationship.controller';
import { RouteTable } from '../http/json-api/route-table';
import { RateLimitGuard } from '../http/rate-limit/rate-limit.guard';
import { AccountModule } from '../modules/account/account.module';
import { CoreModule } from './core.module';
import { OPENAPI_CONTRIBUTIONS } from './openapi';
import { ProcessorsModule } from './processors.module';

export interface ApiModuleOptions {
  /** Embedded mode: the one process also runs the workers. */
  withProcessors: boolean;
  routes: RouteTable;
  /** Tests only: extra modules with controllers of their own. */
  extraModules?: (Type | DynamicModule)[];
}

/**
 * The HTTP process: the core plus the global guards and filter, registered
 * as APP_* providers so tests get exactly what production gets. Response
 * policies (JSON:API content type, Idempotency-Key) are route metadata,
 * applied by createApiApp (see applyRoutePolicies).
 */
@Module({})
export class ApiModule {
  static forRoot(
    config: AppConfig,
    database: DatabaseConnection,
    options: ApiModuleOptions,
  ): DynamicModule {
    return {
      module: ApiModule,
      imports: [
        CoreModule.forRoot(config, database),
        AccountModule,
        IdempotencyModule,
        OpenApiModule.forRoot(OPENAPI_CONTRIBUTIONS),
        ...(options.withProcessors ? [ProcessorsModule] : []),
        ...(options.extraModules ?? []),
      ],
      // Registered last so that literal routes of domain modules win.
      controllers: [
        HealthController,
        MetricsController,
        RelationshipController,
      ],
      providers: [
        { provide: RouteTable, useValue: options.routes },
        // Guards run in this order: who is calling, then how often.
        { provide: APP_GUARD, useClass: ApiKeyGuard },
        { provide: APP_GUARD, useClass: RateLimitGuard },
        { provide: APP_FILTER, useClass: GlobalExceptionFilter },
      ],
    };
  }
}
