import { ObjectLiteral, Repository, ValueTransformer } from 'typeorm';
import { poolQuery } from './pool-query';

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
 * read returns what `getMany()` would.
 */
export class EntityRows<T extends ObjectLiteral> {
  /** `alias.column AS "property", …` for every column of the entity. */
  readonly select: string;
  private readonly transforms: ReadTransform[];
  private readonly entity: new () => T;

  constructor(
    private readonly repository: Repository<T>,
    alias: string,
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
   * `name` prepares a constant SQL text (see `poolQuery`).
   */
  async query(sql: string, parameters: unknown[], name?: string): Promise<T[]> {
    const rows = await poolQuery<ObjectLiteral>(
      this.repository.manager.connection,
      sql,
      parameters,
      name,
    );
    return rows.map((row) => this.hydrate(row));
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
