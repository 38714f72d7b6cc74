import type { FilterValue, ListQuery, Page } from './list-query';
import type { Principal } from './principal';

/**
 * How the records of one resource type are found. Every read is scoped by
 * the principal: a record outside the caller's stores or mode does not
 * exist for it. Ids arrive parsed (`Id`: integers for most types, UUIDs for
 * checkouts); an id that cannot be one never reaches the reader.
 *
 * A module registers one reader per resource type next to its serializer
 * (see `registerResources` in src/http/json-api/resource.ts); documents,
 * includes and the `related`/`relationships` routes read through it.
 */
export interface Reader<T, Id = number> {
  /** Absent: one record is `findMany` with one id. */
  findOne?(principal: Principal, id: Id): Promise<T | null>;
  findMany(principal: Principal, ids: Id[]): Promise<T[]>;
  /** Never called with a filter that matches nothing (see `pageOrNothing`). */
  findPage(principal: Principal, query: ListQuery): Promise<Page<T>>;
  /**
   * All records whose `filter` is one of `values`, for includes of to-many
   * relationships. Absent: the type is the target of no to-many relationship.
   */
  findByFilter?(
    principal: Principal,
    filter: string,
    values: FilterValue[],
  ): Promise<T[]>;
}
