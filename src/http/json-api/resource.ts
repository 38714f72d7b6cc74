import { parseIntegerId } from '../../common/ids';
import {
  FilterValue,
  ListQuery,
  Page,
  pageOrNothing,
} from '../../common/list-query';
import { Principal } from '../../common/principal';
import { ListSpec } from './list-query';

/** A to-one relationship: the related record's id is on this record. */
export interface ToOne<T> {
  kind: 'one';
  type: string;
  id: (record: T) => number | string | null;
}

/**
 * A to-many relationship: the related records are the target list filtered
 * by `filter` = this record's id (e.g. a store's products are the products
 * list with `store_id` = the store's id).
 */
export interface ToMany {
  kind: 'many';
  type: string;
  filter: string;
}

/**
 * A to-many relationship whose ids the record itself carries (a link table
 * loaded with it, e.g. the variants a discount is limited to).
 */
export interface ToManyIds<T> {
  kind: 'ids';
  type: string;
  ids: (record: T) => (number | string)[];
}

export type Relationship<T> = ToOne<T> | ToMany | ToManyIds<T>;

/** How records of one type render as JSON:API resource objects. */
export interface ResourceRenderer<T> {
  readonly type: string;
  readonly relationships: Record<string, Relationship<T>>;
  id(record: T): string;
  /** Pure and synchronous: everything it needs is loaded by the finders. */
  attributes(record: T): Record<string, unknown>;
}

/**
 * One JSON:API resource type: how it renders and how it is found. Each domain
 * module implements this once (in its `*.serializer.ts`) and registers it;
 * documents, includes and the `related`/`relationships` routes are then served
 * from it. Every finder is scoped by the principal: a record outside the
 * caller's stores or mode does not exist for it.
 */
export interface ResourceType<T> extends ResourceRenderer<T> {
  readonly list: ListSpec;
  findOne(principal: Principal, id: string): Promise<T | null>;
  findMany(principal: Principal, ids: string[]): Promise<T[]>;
  /** Through `pageOrNothing`: a filter that matches nothing never reaches SQL. */
  findPage(principal: Principal, query: ListQuery): Promise<Page<T>>;
  /** All records whose `filter` is one of `values`, for includes of to-many relationships. */
  findByFilter(
    principal: Principal,
    filter: string,
    values: FilterValue[],
  ): Promise<T[]>;
}

// The registry stores resources of every record type side by side.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyResourceType = ResourceType<any>;

/**
 * What a resource with integer ids reads through: its module's service. The
 * ids are parsed already, and every read is scoped by the principal.
 */
export interface IntegerIdSource<T> {
  /** Absent: one record is `findMany` with one id. */
  findOne?(principal: Principal, id: number): Promise<T | null>;
  findMany(principal: Principal, ids: number[]): Promise<T[]>;
  findPage(principal: Principal, query: ListQuery): Promise<Page<T>>;
  /** Absent: the type is the target of no to-many relationship. */
  findByFilter?(
    principal: Principal,
    filter: string,
    values: FilterValue[],
  ): Promise<T[]>;
}

/**
 * The finders of a resource type with integer ids, delegated to its service:
 * an id that cannot be an integer is a missing record and never reaches SQL.
 * A serializer extends it and overrides only the finders that differ.
 */
export abstract class IntegerIdFinders<T> {
  constructor(private readonly source: IntegerIdSource<T>) {}

  async findOne(principal: Principal, id: string): Promise<T | null> {
    const parsed = parseIntegerId(id);
    if (parsed === null) return null;
    if (this.source.findOne) return this.source.findOne(principal, parsed);
    const [record] = await this.source.findMany(principal, [parsed]);
    return record ?? null;
  }

  findMany(principal: Principal, ids: string[]): Promise<T[]> {
    return this.source.findMany(
      principal,
      ids.map(parseIntegerId).filter((id) => id !== null),
    );
  }

  findPage(principal: Principal, query: ListQuery): Promise<Page<T>> {
    return pageOrNothing(query, () => this.source.findPage(principal, query));
  }

  findByFilter(
    principal: Principal,
    filter: string,
    values: FilterValue[],
  ): Promise<T[]> {
    if (!this.source.findByFilter) {
      throw new Error(`This resource cannot be listed by ${filter}`);
    }
    return this.source.findByFilter(principal, filter, values);
  }
}
