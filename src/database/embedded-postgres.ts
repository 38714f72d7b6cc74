import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PgliteMultiplexer } from './pglite-multiplexer';

/**
 * The embedded default database: PGlite (PostgreSQL compiled to WASM) kept
 * under DATA_DIR and served on a loopback port, so the `pg` driver, TypeORM,
 * the migrations and BullMQ's PostgreSQL backend run on it unchanged. The
 * port asks for a password generated at each start, which only this process
 * knows (it is in `url`, which is never logged).
 *
 * Only one process may open a PGlite directory, which is why embedded mode
 * runs the API and the workers in one process.
 */
export class EmbeddedPostgres {
  private constructor(
    private readonly db: PGlite,
    private readonly server: PgliteMultiplexer,
    readonly url: string,
    private readonly lockFile: string | null,
  ) {}

  /**
   * `dataDir` null keeps the database in memory (used by tests), starting
   * from `options.loadDataDir` (a PGlite data directory archive) if given.
   */
  static async start(
    dataDir: string | null,
    options: { loadDataDir?: Blob } = {},
  ): Promise<EmbeddedPostgres> {
    let location = 'memory://';
    let lockFile: string | null = null;
    if (dataDir) {
      location = resolve(dataDir, 'pgdata');
      mkdirSync(location, { recursive: true });
      lockFile = resolve(dataDir, 'pgdata.lock');
      acquireLock(lockFile);
    }
    const db = await PGlite.create(location, {
      loadDataDir: options.loadDataDir,
    });
    // A password of this start only: the port is on loopback, where any
    // local user could otherwise connect and read every table.
    const password = randomBytes(24).toString('hex');
    const server = new PgliteMultiplexer(db, password);
    const port = await server.listen('127.0.0.1', 0);
    const url = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
    return new EmbeddedPostgres(db, server, url, lockFile);
  }

  /**
   * A plain-SQL dump (schema and data, no owners or grants) made by
   * PostgreSQL's own pg_dump compiled to WebAssembly
   * (`@electric-sql/pglite-tools`), which `psql` loads into PostgreSQL 14 or
   * later. It includes the `migrations` table, so the server finds nothing
   * to migrate, and BullMQ's tables (its PostgreSQL backend lives in the
   * public schema here); their jobs are not needed elsewhere.
   */
  async dump(): Promise<string> {
    const { pgDump } = await import('@electric-sql/pglite-tools/pg_dump');
    // The same PGlite class, typed once for require and once for import.
    const pg = this.db as unknown as Parameters<typeof pgDump>[0]['pg'];
    const file = await this.server.exclusive(() =>
      pgDump({ pg, args: ['--no-owner', '--no-privileges'] }),
    );
    // PGlite's pg_dump is version 18; its one setting that PostgreSQL 14 to
    // 16 do not know (and that only repeats the default) would stop
    // `psql -v ON_ERROR_STOP=1` there.
    return (await file.text()).replace(/^SET transaction_timeout = 0;\n/m, '');
  }

  async stop(): Promise<void> {
    await this.server.close();
    await this.db.close();
    if (this.lockFile) rmSync(this.lockFile, { force: true });
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Two processes on one PGlite directory would corrupt it; the second is refused. */
function acquireLock(file: string) {
  try {
    writeFileSync(file, String(process.pid), { flag: 'wx' });
    return;
  } catch {
    const holder = Number(readFileSync(file, 'utf8'));
    if (holder !== process.pid && isRunning(holder)) {
      throw new Error(
        `The embedded database in ${file.replace(/pgdata\.lock$/, '')} is in use by process ${holder}. ` +
          'Stop it first, or set DATABASE_URL to share a PostgreSQL server between processes.',
      );
    }
    writeFileSync(file, String(process.pid));
  }
}
