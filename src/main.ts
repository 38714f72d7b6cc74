import 'reflect-metadata';
import { loadConfig } from './config/app-config';
import { openDatabase } from './database/database-connection';

/**
 * The API process. With DATABASE_URL unset it is the whole embedded server:
 * it migrates, seeds a demo store on first start and runs the workers too.
 *
 * The application's modules load while the database opens: PGlite compiles
 * its WebAssembly on V8's background threads, so the two overlap.
 */
async function main() {
  const config = loadConfig();
  const [database, { createApiApp }, { closeOnSignals }, quickstart, migrate] =
    await Promise.all([
      openDatabase(config),
      import('./app/bootstrap.js'),
      import('./app/shutdown.js'),
      import('./app/quickstart.js'),
      import('./database/migrate.js'),
    ]);
  const embedded = database.embedded !== null;
  if (embedded) await migrate.runMigrations(database.url);
  const app = await createApiApp(config, database, {
    withProcessors: embedded,
  });
  closeOnSignals(() => app.close(), database, config);
  await app.listen({ port: config.http.port, host: config.http.host });
  const { Logger } = await import('@nestjs/common');
  new Logger('Zest').log(
    `API listening on ${config.http.publicBaseUrl} (${embedded ? 'embedded database and workers' : 'API only'})`,
  );
  if (embedded) await quickstart.seedDemoOnFirstStart(app, config);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
