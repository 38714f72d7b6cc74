import { DataSource } from 'typeorm';
import { commitWith } from '../../src/database/pool-query';
import { Transactions } from '../../src/database/transactions';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * `commitWith` sends a transaction's last statement with its COMMIT, so a
 * lock that statement takes is held only until the commit, never while the
 * API gets round to answering. Checked on both backends: the embedded
 * multiplexer passes the combined message through as one exchange.
 */
describe('commitWith', () => {
  let t: TestApp;
  let db: DataSource;
  let transactions: Transactions;

  beforeAll(async () => {
    t = await startTestApp();
    db = t.app.get(DataSource);
    transactions = t.app.get(Transactions);
    await db.query(`
      CREATE TABLE commit_with_rows (
        id integer PRIMARY KEY, label text NOT NULL, n integer NOT NULL DEFAULT 0)`);
  });
  afterAll(async () => {
    await t?.close();
  });
  beforeEach(async () => {
    await db.query(`TRUNCATE commit_with_rows`);
    await db.query(
      `INSERT INTO commit_with_rows (id, label) VALUES (1, 'counter')`,
    );
  });

  const counter = async () =>
    (
      (await db.query(`SELECT n FROM commit_with_rows WHERE id = 1`)) as {
        n: number;
      }[]
    )[0].n;
  const labels = async () =>
    (
      (await db.query(
        `SELECT label FROM commit_with_rows WHERE id > 1 ORDER BY id`,
      )) as { label: string }[]
    ).map((row) => row.label);

  it('commits before the caller goes on, releasing the row lock it took', async () => {
    let inside: unknown = null;
    const result = await transactions.run(async (manager) => {
      await manager.query(
        `INSERT INTO commit_with_rows (id, label) VALUES (2, 'before')`,
      );
      const rows = await commitWith<{ n: number }>(
        manager,
        `UPDATE commit_with_rows SET n = n + $1 WHERE id = $2 RETURNING n`,
        [5, 1],
      );
      // The connection is in a new, read-only transaction that wrote nothing.
      const [state] = (await manager.query(
        `SELECT current_setting('transaction_read_only') AS read_only,
                pg_current_xact_id_if_assigned() IS NULL AS fresh`,
      )) as { read_only: string; fresh: boolean }[];
      // On a server, another connection sees the commit and takes the row
      // at once. (The embedded database's connections share one session,
      // taking turns by transaction, so there none can come in between.)
      let locked: { n: number }[] | null = null;
      if (process.env.DATABASE_URL) {
        const other = db.createQueryRunner();
        try {
          await other.startTransaction();
          locked = (await other.query(
            `SELECT n FROM commit_with_rows WHERE id = 1 FOR UPDATE NOWAIT`,
          )) as { n: number }[];
          await other.commitTransaction();
        } finally {
          await other.release();
        }
      }
      inside = { state, locked };
      return rows[0].n;
    });
    expect(result).toBe(5);
    expect(inside).toEqual({
      state: { read_only: 'on', fresh: true },
      locked: process.env.DATABASE_URL ? [{ n: 5 }] : null,
    });
    expect(await labels()).toEqual(['before']);
  });

  it('refuses a write after it, and what it committed stays', async () => {
    await expect(
      transactions.run(async (manager) => {
        await commitWith(
          manager,
          `UPDATE commit_with_rows SET n = n + 1 WHERE id = $1`,
          [1],
        );
        await manager.query(
          `INSERT INTO commit_with_rows (id, label) VALUES (3, 'after')`,
        );
      }),
    ).rejects.toThrow(/read-only transaction/);
    expect(await counter()).toBe(1);
    expect(await labels()).toEqual([]);
  });

  it('leaves nothing committed when its statement fails', async () => {
    await expect(
      transactions.run(async (manager) => {
        await manager.query(
          `INSERT INTO commit_with_rows (id, label) VALUES (2, 'before')`,
        );
        await commitWith(
          manager,
          `UPDATE commit_with_rows SET n = n + 1 WHERE id = $1 AND 1 / $2 = 1`,
          [1, 0],
        );
      }),
    ).rejects.toThrow(/division by zero/);
    expect(await counter()).toBe(0);
    expect(await labels()).toEqual([]);
  });

  it('leaves nothing committed when the commit fails', async () => {
    await db.query(`
      CREATE FUNCTION commit_with_refuse() RETURNS trigger
      LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused at commit'; END $$`);
    await db.query(`
      CREATE CONSTRAINT TRIGGER commit_with_refuse AFTER INSERT ON commit_with_rows
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
      WHEN (NEW.label = 'refused') EXECUTE FUNCTION commit_with_refuse()`);
    try {
      await expect(
        transactions.run(async (manager) => {
          await manager.query(
            `INSERT INTO commit_with_rows (id, label) VALUES (2, 'refused')`,
          );
          await commitWith(
            manager,
            `UPDATE commit_with_rows SET n = n + 1 WHERE id = $1`,
            [1],
          );
        }),
      ).rejects.toThrow(/refused at commit/);
      expect(await counter()).toBe(0);
      expect(await labels()).toEqual([]);
      // The connection is usable again afterwards.
      await transactions.run((manager) =>
        commitWith(
          manager,
          `UPDATE commit_with_rows SET n = n + 1 WHERE id = $1`,
          [1],
        ),
      );
      expect(await counter()).toBe(1);
    } finally {
      await db.query(
        `DROP TRIGGER IF EXISTS commit_with_refuse ON commit_with_rows`,
      );
      await db.query(`DROP FUNCTION IF EXISTS commit_with_refuse()`);
    }
  });

  it('writes its values as literals that mean what the parameters did', async () => {
    const text = `it's $1 -- '; DROP TABLE commit_with_rows; --`;
    const at = new Date('2026-11-26T10:00:00.123Z');
    const rows = await transactions.run((manager) =>
      commitWith<{
        text: string;
        yes: boolean;
        no: boolean;
        at: Date;
        ids: string[];
        n: number;
        none: string | null;
      }>(
        manager,
        `SELECT $1::text AS text, $2::boolean AS yes, $3::boolean AS no,
                $4::timestamptz AS at, $5::bigint[] AS ids, $6::integer AS n, $7::text AS none`,
        [text, true, false, at, [3, 1, 2], -7, null],
      ),
    );
    expect(rows).toEqual([
      {
        text,
        yes: true,
        no: false,
        at,
        ids: ['3', '1', '2'],
        n: -7,
        none: null,
      },
    ]);
    expect(await counter()).toBe(0);
  });

  it('refuses values it cannot write as literals, before sending anything', async () => {
    for (const value of [1.5, Number.NaN, { a: 1 }, [1, 'x'], undefined]) {
      await expect(
        transactions.run(async (manager) => {
          await manager.query(
            `INSERT INTO commit_with_rows (id, label) VALUES (2, 'before')`,
          );
          await commitWith(manager, `SELECT $1 AS value`, [value]);
        }),
      ).rejects.toThrow(/commitWith/);
    }
    expect(await labels()).toEqual([]);
  });
});
