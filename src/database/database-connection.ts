import { AppConfig } from '../config/app-config';
import { EmbeddedPostgres } from './embedded-postgres';

/** Where the process's PostgreSQL is, and the embedded server if it owns one. */
export interface DatabaseConnection {
  url: string;
  embedded: EmbeddedPostgres | null;
}

export async function openDatabase(
  config: AppConfig,
  options: { inMemory?: boolean; loadDataDir?: Blob } = {},
): Promise<DatabaseConnection> {
  if (config.database.url) return { url: config.database.url, embedded: null };
  const embedded = await EmbeddedPostgres.start(
    options.inMemory ? null : config.database.dataDir,
    { loadDataDir: options.loadDataDir },
  );
  return { url: embedded.url, embedded };
}

export async function closeDatabase(connection: DatabaseConnection) {
  await connection.embedded?.stop();
}
