import { INT32_MAX, INTEGER_STRING } from './validation-messages';

/**
 * What a list asks for and what it gets back, as plain values: the HTTP
 * layer parses a query string into a ListQuery (http/json-api/list-query.ts),
 * services and repositories answer it with a Page.
 */

export type FilterValue = string | number | boolean;

/** A well-formed filter value that no record can have (an unknown status, id 0). */
export const NO_MATCH = Symbol('no record can match');

/**
 * Turns one `filter[x]` string into a typed value; NO_MATCH when no record
 * can have it (the list is then empty), null when it is of the wrong type
 * (a 400).
 */
export type FilterParser = (
  raw: string,
) => FilterValue | typeof NO_MATCH | null;

/**
 * Filter values are text, so any string is well-formed for a text column:
 * one outside an enumeration or a boolean's `true`/`false` matches nothing.
 * Id columns are numbers: a value that is not an integer is a client's
 * mistake (400); an integer no id can be (0, negative, past the column's
 * range) matches nothing.
 */
export const filterParsers = {
  id: (raw: string) => {
    if (!INTEGER_STRING.test(raw)) return null;
    const id = Number(raw);
    return id >= 1 && id <= INT32_MAX ? id : NO_MATCH;
  },
  /**
   * An e-mail address: the whole address, compared without regard to case,
   * as a purchase finds its customer (the repositories compare `lower()`s).
   */
  email: (raw: string) => raw,
  boolean: (raw: string) =>
    raw === 'true' ? true : raw === 'false' ? false : NO_MATCH,
  // `allowed` stays readable so the OpenAPI document can list the values.
  oneOf: (...allowed: string[]) =>
    Object.assign((raw: string) => (allowed.includes(raw) ? raw : NO_MATCH), {
      allowed,
    }),
} satisfies Record<
  string,
  FilterParser | ((...args: string[]) => FilterParser)
>;

export interface SortKey {
  field: string;
  descending: boolean;
}

/**
 * A keyset position (the cursor extension, `page[after]`/`page[before]`):
 * the page is the `size` records after (or before) the record `id` in the
 * list's order; `id` null with `after` is the start of the list.
 */
export interface PageCursor {
  direction: 'after' | 'before';
  id: number | null;
}

export interface Pagination {
  number: number;
  size: number;
  /** Set when the page is asked for by cursor; `number` is then 1 and unused. */
  cursor?: PageCursor;
}

export interface ListQuery {
  page: Pagination;
  /** The filters a record can match, typed. */
  filters: Record<string, FilterValue>;
  /**
   * Filters given a value no record can have, as sent (for the page links).
   * Any at all makes the page empty: `findPage` answers it without a query
   * (see `pageOrNothing`), so such values never reach SQL.
   */
  unmatchable: Record<string, string>;
  sort: SortKey[];
  /** The `sort` value as it goes into pagination links. */
  sortParam: string;
  include: string[];
}

/** A query string as parsed: a repeated parameter is an array. */
export type RawQuery = Record<string, string | string[] | undefined>;

export interface Page<T> {
  records: T[];
  total: number;
  /**
   * Cursor pages only: whether records follow this page in the direction
   * of travel (past its last record for `after`, before its first for
   * `before`).
   */
  more?: boolean;
}

/**
 * A list's page, or the empty page without a query when a filter has a
 * value no record can have (`ListQuery.unmatchable`). Every `findPage` goes
 * through it; IntegerIdFinders does for its subclasses.
 */
export function pageOrNothing<T>(
  query: ListQuery,
  find: () => Promise<Page<T>>,
): Promise<Page<T>> {
  return Object.keys(query.unmatchable).length > 0
    ? Promise.resolve({ records: [], total: 0 })
    : find();
}
