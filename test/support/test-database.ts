import { createHash, randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Client } from 'pg';
import { runMigrations } from '../../src/database/migrate';
import { PgliteMultiplexer } from '../../src/database/pglite-multiplexer';

/**
 * Migrated starting points for the test apps' databases, so each test file
 * copies a migrated database instead of running every migration again: a
 * template database on the PostgreSQL server (`CREATE DATABASE … TEMPLATE`)
 * and a PGlite data directory archive under the OS temp dir (PGlite's
 * `loadDataDir`). Both are named by a hash of the migrations (and PGlite's
 * version), so a changed or added migration gets a starting point of its own
 * and an old one is never used for it.
 */

const MIGRATIONS_DIR = join(process.cwd(), 'src', 'database', 'migrations');

let cachedKey: string | undefined;

/** Hash of every migration source and of the PGlite release. */
function migrationsKey(): string {
  if (cachedKey) return cachedKey;
  const hash = createHash('sha256');
  const pglite = JSON.parse(
    readFileSync(
      join(process.cwd(), 'node_modules/@electric-sql/pglite/package.json'),
      'utf8',
    ),
  ) as { version: string };
  hash.update(`pglite ${pglite.version}\n`);
  for (const name of readdirSync(MIGRATIONS_DIR).sort()) {
    hash.update(`${name}\n`);
    hash.update(readFileSync(join(MIGRATIONS_DIR, name)));
  }
  cachedKey = hash.digest('hex').slice(0, 16);
  return cachedKey;
}

async function withClient<T>(
  url: string,
  use: (client: Client) => Promise<T>,
): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * The migrated template on the server, made once (under an advisory lock,
 * since several Jest workers and other checkouts share the server): built
 * under a temporary name, then renamed and closed to connections, so a
 * template that exists is complete and nothing holds it open while it is
 * copied.
 */
async function migratedTemplate(serverUrl: string): Promise<string> {
  const key = migrationsKey();
  const template = `zest_test_template_${key}`;
  const exists = (client: Client) =>
    client
      .query('SELECT 1 FROM pg_database WHERE datname = $1', [template])
      .then((result) => (result.rowCount ?? 0) > 0);
  await withClient(serverUrl, async (admin) => {
    if (await exists(admin)) return;
    const lock = Number.parseInt(key.slice(0, 8), 16);
    await admin.query('SELECT pg_advisory_lock($1)', [lock]);
    try {
      if (await exists(admin)) return;
      const building = `zest_test_build_${key}_${randomBytes(4).toString('hex')}`;
      await admin.query(`CREATE DATABASE ${building}`);
      try {
        await runMigrations(databaseUrl(serverUrl, building));
        await admin.query(`ALTER DATABASE ${building} RENAME TO ${template}`);
      } catch (error) {
        await admin.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
        throw error;
      }
      await admin.query(
        `ALTER DATABASE ${template} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`,
      );
    } finally {
      await admin.query('SELECT pg_advisory_unlock($1)', [lock]);
    }
  });
  return template;
}

/**
 * A fresh, migrated database for one test file on the server named by
 * `serverUrl` (never that database itself); `drop` removes it.
 */
export async function createMigratedDatabase(
  serverUrl: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const template = await migratedTemplate(serverUrl);
  const name = `zest_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  await withClient(serverUrl, (admin) =>
    admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`),
  );
  return {
    url: databaseUrl(serverUrl, name),
    drop: () =>
      withClient(serverUrl, (admin) =>
        admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
      ).then(() => undefined),
  };
}

/** Archives (of other migration sets) unused for this long are removed. */
const STALE_ARCHIVE_MS = 24 * 60 * 60 * 1000;

/**
 * A PGlite data directory with every migration applied, as an archive for
 * `PGlite.create(…, { loadDataDir })`. Made once per migration set and kept
 * under the OS temp dir; written to a temporary file and renamed, so
 * concurrent Jest workers never read half an archive.
 */
export async function migratedPgliteArchive(): Promise<Blob> {
  const dir = join(tmpdir(), 'zest-test-databases');
  const file = join(dir, `pglite-${migrationsKey()}.tar`);
  if (existsSync(file)) {
    const now = new Date();
    utimesSync(file, now, now);
    return new Blob([readFileSync(file)]);
  }
  mkdirSync(dir, { recursive: true });
  const db = await PGlite.create('memory://');
  const password = randomBytes(24).toString('hex');
  const server = new PgliteMultiplexer(db, password);
  try {
    const port = await server.listen('127.0.0.1', 0);
    await runMigrations(
      `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    );
  } finally {
    await server.close();
  }
  const archive = await db.dumpDataDir('none');
  await db.close();
  const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(partial, Buffer.from(await archive.arrayBuffer()));
  renameSync(partial, file);
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stats = statSync(path, { throwIfNoEntry: false });
    if (stats && Date.now() - stats.mtimeMs > STALE_ARCHIVE_MS)
      rmSync(path, { force: true });
  }
  return archive;
}
