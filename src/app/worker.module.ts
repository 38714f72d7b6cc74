import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { DatabaseConnection } from '../database/database-connection';
import { CoreModule } from './core.module';
import { ProcessorsModule } from './processors.module';

/** The worker process: the core plus every processor, no HTTP routes. */
@Module({})
export class WorkerModule {
  static forRoot(
    config: AppConfig,
    database: DatabaseConnection,
  ): DynamicModule {
    return {
      module: WorkerModule,
      imports: [CoreModule.forRoot(config, database), ProcessorsModule],
    };
  }
}
