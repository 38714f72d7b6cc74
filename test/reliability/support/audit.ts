import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';

/** The application's tables: those its migrations create (not BullMQ's PostgreSQL backend's). */
export function migrationTables(): string[] {
  const dir = join(process.cwd(), 'src/database/migrations');
  const names = new Set<string>();
  for (const file of readdirSync(dir)) {
    const source = readFileSync(join(dir, file), 'utf8');
    for (const match of source.matchAll(
      /CREATE TABLE (?:IF NOT EXISTS )?"?([a-z_]+)"?/g,
    ))
      names.add(match[1]);
  }
  return [...names];
}

/**
 * Records every committed row change: an AFTER ROW trigger on each
 * application table appends (table, operation) to rel_audit in the writer's
 * own transaction, so a rolled-back write leaves nothing and a committed one
 * always leaves a row. Stronger than comparing row counts: updates and
 * delete+insert pairs show up too. Test databases only.
 */
export class WriteAudit {
  constructor(private readonly db: DataSource) {}

  async install(exclude: string[] = []) {
    await this.db.query(`CREATE TABLE IF NOT EXISTS rel_audit (
      id bigserial PRIMARY KEY, tbl text NOT NULL, op text NOT NULL)`);
    await this.db
      .query(`CREATE OR REPLACE FUNCTION rel_audit_row() RETURNS trigger
      LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO rel_audit (tbl, op) VALUES (TG_TABLE_NAME, TG_OP);
        RETURN NULL;
      END $$`);
    const audited = migrationTables().filter((name) => !exclude.includes(name));
    for (const name of audited) {
      await this.db.query(
        `CREATE OR REPLACE TRIGGER rel_audit AFTER INSERT OR UPDATE OR DELETE
         ON "${name}" FOR EACH ROW EXECUTE FUNCTION rel_audit_row()`,
      );
    }
    return audited;
  }

  /** The newest audit row id: writes after this mark are "since". */
  async mark(): Promise<number> {
    const [row] = await this.db.query<{ id: string | null }[]>(
      `SELECT max(id) AS id FROM rel_audit`,
    );
    return Number(row.id ?? 0);
  }

  async since(mark: number): Promise<{ tbl: string; op: string }[]> {
    return this.db.query(
      `SELECT tbl, op FROM rel_audit WHERE id > $1 ORDER BY id`,
      [mark],
    );
  }

  /** Row counts of every audited table, for the report. */
  async counts(tables: string[]): Promise<Record<string, number>> {
    const sql = tables
      .map((name) => `SELECT '${name}' AS t, count(*)::int AS n FROM "${name}"`)
      .join(' UNION ALL ');
    const rows: { t: string; n: number }[] = await this.db.query(sql);
    return Object.fromEntries(rows.map((row) => [row.t, row.n]));
  }
}
