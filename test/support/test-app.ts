import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamicModule, Type } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Client } from 'pg';
import { createApiApp } from '../../src/app/bootstrap';
import { AppConfig, loadConfig } from '../../src/config/app-config';
import {
  closeDatabase,
  DatabaseConnection,
  openDatabase,
} from '../../src/database/database-connection';
import { runMigrations } from '../../src/database/migrate';
import { OpenApiService } from '../../src/http/openapi/openapi.service';
import { checkResponsesAgainstDocument } from './openapi-contract';
import { createMigratedDatabase, migratedPgliteArchive } from './test-database';

export const TEST_APP_KEY = 'test-app-key-0123456789abcdefghijklmnopqrstuvwxyz';

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/**
 * A fresh database for one test file: a new database on the server named by
 * DATABASE_URL (never the configured database itself), or an in-memory
 * embedded PGlite when DATABASE_URL is unset.
 */
export async function createTestDatabase(): Promise<{
  url: string | null;
  drop: () => Promise<void>;
}> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) return { url: null, drop: async () => undefined };
  const name = `zest_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

/**
 * Every buyer in a test is 127.0.0.1, so the per-IP limits of the public
 * routes (pages, purchases, checkout pauses) would meet one file's own
 * purchases; the files that test those limits set their own.
 */
export const GENEROUS_PUBLIC_LIMITS: Record<string, string> = {
  PAGE_RATE_LIMIT_PER_MINUTE: '1000000',
  PURCHASE_RATE_LIMIT_PER_MINUTE: '1000000',
  CHECKOUT_RATE_LIMIT_PER_MINUTE: '1000000',
  CHECKOUT_LOCK_DECLINES: '1000000',
};

export interface TestApp {
  app: NestFastifyApplication;
  config: AppConfig;
  baseUrl: string;
  database: DatabaseConnection;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /** Test-only modules (e.g. `TestRoutesModule`) mounted next to the real ones. */
  modules?: (Type | DynamicModule)[];
}

/**
 * The real API application on a fresh database, listening on a loopback
 * port. The database starts as a copy of a migrated one (test-database.ts);
 * the migrations still run over it, finding nothing to do.
 */
export async function startTestApp(
  env: Record<string, string> = {},
  options: TestAppOptions = {},
): Promise<TestApp> {
  const serverUrl = process.env.DATABASE_URL;
  const testDatabase = serverUrl
    ? await createMigratedDatabase(serverUrl)
    : { url: null, drop: async () => undefined };
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'zest-test-'));
  const config = loadConfig({
    DATABASE_URL: testDatabase.url ?? undefined,
    REDIS_URL: process.env.REDIS_URL,
    APP_KEY: TEST_APP_KEY,
    DATA_DIR: dataDir,
    PORT: String(port),
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: 'silent',
    QUEUE_PREFIX: `zest-test-${randomBytes(4).toString('hex')}`,
    API_KEY_CACHE_TTL_MS: '0',
    NODE_ENV: 'test',
    ...GENEROUS_PUBLIC_LIMITS,
    ...env,
  });
  const database = await openDatabase(config, {
    inMemory: true,
    loadDataDir: serverUrl ? undefined : await migratedPgliteArchive(),
  });
  await runMigrations(database.url);
  const app = await createApiApp(config, database, {
    withProcessors: database.embedded !== null,
    extraModules: options.modules,
  });
  const openApi = app.get(OpenApiService);
  checkResponsesAgainstDocument(app.getHttpAdapter().getInstance(), () =>
    openApi.get(),
  );
  await app.listen({ port, host: '127.0.0.1' });
  return {
    app,
    config,
    baseUrl: `http://127.0.0.1:${port}`,
    database,
    async close() {
      await app.close();
      await closeDatabase(database);
      await testDatabase.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
