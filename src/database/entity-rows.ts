import {
  EntityManager,
  ObjectLiteral,
  Repository,
  ValueTransformer,
} from 'typeorm';
import { poolQuery, transactionQuery } from './pool-query';

/** Statement names of the INSERT texts built so far, one per distinct text. */
const insertNames = new Map<string, string>();

function insertName(sql: string, table: string): string {
  let name = insertNames.get(sql);
  if (name === undefined) {
    name = `${table}.insert-${insertNames.size + 1}`;
    insertNames.set(sql, name);
  }
  return name;
}

interface ReadTransform {
  property: string;
  /** Applied in order; an array of transformers reads in reverse, as TypeORM does. */
  readers: ValueTransformer[];
}

/**
 * Reads entities with hand-written SQL, for the hottest reads: the query
 * builder's SQL generation and hydration cost more CPU than the query itself.
 * The select list comes from the entity's mapping (every column, under its
 * property name), and hydration applies the columns' transformers, so a raw
 * read returns what `getMany()` would. `insert` is the same for writes:
 * a plain INSERT … RETURNING, without the change tracking of `save()`.
 */
export class EntityRows<T extends ObjectLiteral> {
  /** `alias.column AS "property", …` for every column of the entity. */
  readonly select: string;
  private readonly transforms: ReadTransform[];
  private readonly entity: new () => T;

  constructor(
    private readonly repository: Repository<T>,
    private readonly alias: string,
  ) {
    const { columns, target } = repository.metadata;
    if (typeof target !== 'function' || columns.some((c) => c.embeddedMetadata))
      throw new Error('EntityRows reads flat entity classes only');
    this.entity = target as new () => T;
    this.select = columns
      .map((c) => `${alias}.${c.databaseName} AS "${c.propertyName}"`)
      .join(', ');
    this.transforms = columns
      .filter((c) => c.transformer)
      .map((c) => ({
        property: c.propertyName,
        readers: Array.isArray(c.transformer)
          ? [...c.transformer].reverse()
          : [c.transformer!],
      }));
  }

  /**
   * Runs a read that selects `this.select` and returns its rows as entities;
   * `name` prepares a constant SQL text (see `poolQuery`). With a
   * transaction's `manager` it reads on that transaction's connection.
   */
  async query(
    sql: string,
    parameters: unknown[],
    name?: string,
    manager?: EntityManager,
  ): Promise<T[]> {
    const rows = manager
      ? await transactionQuery<ObjectLiteral>(manager, sql, parameters, name)
      : await poolQuery<ObjectLiteral>(
          this.repository.manager.connection,
          sql,
          parameters,
          name,
        );
    return rows.map((row) => this.hydrate(row));
  }

  /**
   * Inserts `rows` in one statement on the transaction's connection and
   * returns them as stored (generated ids, defaults). Every row must set the
   * same properties; columns left undefined take their defaults. Values go
   * through the driver's conversion and the columns' transformers, as with
   * `save()`. The statement is prepared, named after its text: each row
   * count is a statement of its own, so this is for a few rows at a time.
   * `skipConflicts` leaves out the rows a unique constraint refuses
   * (`ON CONFLICT DO NOTHING`): they are missing from the result.
   */
  async insert(
    manager: EntityManager,
    rows: Partial<T>[],
    skipConflicts = false,
  ): Promise<T[]> {
    if (rows.length === 0) return [];
    const { driver } = this.repository.manager.connection;
    const { tableName, columns: all } = this.repository.metadata;
    const columns = all.filter(
      (column) => rows[0][column.propertyName] !== undefined,
    );
    const values: unknown[] = [];
    const tuples = rows.map((row) => {
      const placeholders = columns.map((column) => {
        values.push(
          driver.preparePersistentValue(row[column.propertyName], column),
        );
        return `$${values.length}`;
      });
      return `(${placeholders.join(', ')})`;
    });
    const sql = `INSERT INTO ${tableName} AS ${this.alias} (${columns
      .map((column) => `"${column.databaseName}"`)
      .join(', ')}) VALUES ${tuples.join(', ')}${
      skipConflicts ? ' ON CONFLICT DO NOTHING' : ''
    } RETURNING ${this.select}`;
    return this.query(sql, values, insertName(sql, tableName), manager);
  }

  private hydrate(row: ObjectLiteral): T {
    for (const { property, readers } of this.transforms) {
      let value: unknown = row[property];
      for (const reader of readers) value = reader.from(value);
      row[property] = value;
    }
    return Object.assign(new this.entity(), row);
  }
}
