import { writeFileSync } from 'node:fs';
import { Command, UsageError } from '../command';
import { application } from './shared';

/** The database: migrations, export, the demo seed. */
export const DATABASE_COMMANDS: Record<string, Command> = {
  migrate: {
    description: 'Apply the database migrations that have not run yet.',
    options: {},
    example: 'migrate',
    async run(_, { database, progress }) {
      const { runMigrations } = await import('../runtime.js');
      progress('Applying migrations…');
      return { applied: await runMigrations(database.url) };
    },
  },
  'db:export': {
    description:
      'Write the embedded database as a plain SQL dump (schema and data, as pg_dump writes it) that psql loads into PostgreSQL.',
    arguments: [
      {
        name: 'file',
        description:
          'Where to write the dump. Default: zest-export-<date>.sql in the current directory.',
      },
    ],
    options: {},
    example: 'db:export zest.sql',
    async run(values, { database, progress }) {
      if (!database.embedded)
        throw new UsageError(
          'db:export reads the embedded database; with DATABASE_URL set, use pg_dump',
        );
      const file =
        (values.file as string | undefined) ??
        `zest-export-${new Date().toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-')}.sql`;
      progress('Dumping (pg_dump)…');
      const sql = await database.embedded.dump();
      writeFileSync(file, sql, { mode: 0o600, flag: 'wx' });
      return {
        file,
        bytes: Buffer.byteLength(sql),
        tables: (sql.match(/^CREATE TABLE /gm) ?? []).length,
        // API-key hashes and webhook secrets are keyed with APP_KEY.
        next: `psql "$DATABASE_URL" -v ON_ERROR_STOP=1 -f ${file}, then start Zest with that DATABASE_URL and the same APP_KEY (if it was never set, the one in DATA_DIR/app-key)`,
      };
    },
  },
  'seed:demo': {
    description:
      'Create the demo user, store, test-mode key and catalog (does nothing the second time).',
    options: {},
    example: 'seed:demo',
    async run(_, { app, progress }) {
      const { seedDemo } = await application();
      const context = await app();
      progress('Seeding the demo…');
      return seedDemo(context);
    },
  },
};
