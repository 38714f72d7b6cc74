import { DataSourceOptions } from 'typeorm';
import { migrations } from './migrations';

/** One definition for the app, the worker, the CLI and the tests. */
export function dataSourceOptions(
  url: string,
  poolSize: number,
  entities: DataSourceOptions['entities'] = [],
): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities,
    migrations,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    logging: false,
    poolSize,
    extra: {
      // Fail fast instead of queueing forever when the database is away.
      connectionTimeoutMillis: 10_000,
      application_name: 'zest',
    },
  };
}
