import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { closeOnSignals, createApiApp } from './app/bootstrap';
import { seedDemoOnFirstStart } from './app/quickstart';
import { loadConfig } from './config/app-config';
import { openDatabase } from './database/database-connection';
import { runMigrations } from './database/migrate';

/**
 * The API process. With DATABASE_URL unset it is the whole embedded server:
 * it migrates, seeds a demo store on first start and runs the workers too.
 */
async function main() {
  const config = loadConfig();
  const database = await openDatabase(config);
  const embedded = database.embedded !== null;
  if (embedded) await runMigrations(database.url);
  const app = await createApiApp(config, database, {
    withProcessors: embedded,
  });
  closeOnSignals(() => app.close(), database, config);
  await app.listen({ port: config.http.port, host: config.http.host });
  const logger = new Logger('Zest');
  logger.log(
    `API listening on ${config.http.publicBaseUrl} (${embedded ? 'embedded database and workers' : 'API only'})`,
  );
  if (embedded) await seedDemoOnFirstStart(app, config);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
