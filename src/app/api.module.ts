import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { AppConfig } from '../config/app-config';
import { DatabaseConnection } from '../database/database-connection';
import { ApiKeyGuard } from '../http/auth/api-key.guard';
import { HealthController } from '../http/health/health.controller';
import { JsonApiContentTypeInterceptor } from '../http/json-api/json-api-content-type.interceptor';
import { JsonApiExceptionFilter } from '../http/json-api/json-api-exception.filter';
import { RelationshipController } from '../http/json-api/relationship.controller';
import { RouteTable } from '../http/json-api/route-table';
import { AccountModule } from '../modules/account/account.module';
import { CoreModule } from './core.module';
import { ProcessorsModule } from './processors.module';

export interface ApiModuleOptions {
  /** Embedded mode: the one process also runs the workers. */
  withProcessors: boolean;
  routes: RouteTable;
}

/**
 * The HTTP process: the core plus the global guard, filter and interceptors,
 * registered as APP_* providers so tests get exactly what production gets.
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
        ...(options.withProcessors ? [ProcessorsModule] : []),
      ],
      // Registered last so that literal routes of domain modules win.
      controllers: [HealthController, RelationshipController],
      providers: [
        { provide: RouteTable, useValue: options.routes },
        { provide: APP_GUARD, useClass: ApiKeyGuard },
        { provide: APP_FILTER, useClass: JsonApiExceptionFilter },
        { provide: APP_INTERCEPTOR, useClass: JsonApiContentTypeInterceptor },
      ],
    };
  }
}
