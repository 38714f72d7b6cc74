import 'reflect-metadata';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createApiApp } from './app/bootstrap';
import { loadConfig } from './config/app-config';
import { closeDatabase, openDatabase } from './database/database-connection';
import { runMigrations } from './database/migrate';
import {
  DOCUMENT_SERVER,
  OpenApiService,
} from './http/openapi/openapi.service';

/**
 * `npm run openapi`: boots the API (on a throw-away in-memory database, no
 * listener, no workers) and writes its OpenAPI document, by default to
 * docs/openapi.json.
 */
async function main() {
  const { values } = parseArgs({
    options: { out: { type: 'string', default: 'docs/openapi.json' } },
  });
  const dataDir = mkdtempSync(join(tmpdir(), 'zest-openapi-'));
  const config = loadConfig({
    APP_KEY: 'openapi-export-only-0123456789abcdefghijklmnopqrstuv',
    DATA_DIR: dataDir,
    PUBLIC_BASE_URL: DOCUMENT_SERVER,
    LOG_LEVEL: 'silent',
    NODE_ENV: 'development',
  });
  const database = await openDatabase(config, { inMemory: true });
  try {
    await runMigrations(database.url);
    const app = await createApiApp(config, database, { withProcessors: false });
    const document = app.get(OpenApiService).get();
    writeFileSync(values.out, `${JSON.stringify(document, null, 2)}\n`);
    await app.close();
    process.stdout.write(
      `${values.out}: ${Object.keys(document.paths).length} paths\n`,
    );
  } finally {
    await closeDatabase(database);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
