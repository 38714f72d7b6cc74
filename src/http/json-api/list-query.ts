import { AppError } from '../../common/app-error';
import { INT32_MAX, INTEGER_STRING } from '../../common/validation-messages';

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

/** What a list endpoint accepts, declared once per resource. */
export interface ListSpec {
  filters: Record<string, FilterParser>;
  /** Attribute names the list can be sorted by (snake_case). */
  sorts: string[];
  /** The default `sort` value, spelled as the reference API spells it in links. */
  defaultSort: string;
}

export interface SortKey {
  field: string;
  descending: boolean;
}

export interface Pagination {
  number: number;
  size: number;
}

export interface ListQuery {
  page: Pagination;
  /** The filters a record can match, typed. */
  filters: Record<string, FilterValue>;
  /**
   * Filters given a value no record can have, as sent (for the page links).
   * Any at all makes the page empty: `findPage` answers it without a query
   * (see `pageOrNothing` in resource.ts), so such values never reach SQL.
   */
  unmatchable: Record<string, string>;
  sort: SortKey[];
  /** The `sort` value as it goes into pagination links. */
  sortParam: string;
  include: string[];
}

export const DEFAULT_PAGE_SIZE = 10;
export const MAX_PAGE_SIZE = 100;

export type RawQuery = Record<string, string | string[] | undefined>;

function single(query: RawQuery, name: string): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) {
    throw AppError.badRequest(`The parameter ${name} may be given only once.`, {
      parameter: name,
    });
  }
  return value;
}

function pageParameter(
  query: RawQuery,
  name: string,
  fallback: number,
  max: number,
) {
  const raw = single(query, name);
  if (raw === undefined) return fallback;
  const value = /^\d{1,9}$/.test(raw) ? Number(raw) : NaN;
  if (!(value >= 1 && value <= max)) {
    throw AppError.badRequest(
      `${name} must be an integer from 1 to ${max === Number.MAX_SAFE_INTEGER ? 'upwards' : max}.`,
      { parameter: name },
    );
  }
  return value;
}

const snakeCase = (name: string) =>
  name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Parses `include`, where an empty value means none (every SDK list call sends `include=`). */
export function parseInclude(query: RawQuery, allowed: string[]): string[] {
  const raw = single(query, 'include');
  if (!raw) return [];
  const names = [
    ...new Set(
      raw
        .split(',')
        .map((n) => n.trim())
        .filter(Boolean),
    ),
  ];
  for (const name of names) {
    if (!allowed.includes(name)) {
      throw AppError.badRequest(
        `Unknown include "${name}". Allowed: ${allowed.join(', ') || 'none'}.`,
        { parameter: 'include' },
      );
    }
  }
  return names;
}

function parseSort(raw: string | undefined, spec: ListSpec): SortKey[] {
  const value = raw ?? spec.defaultSort;
  return value.split(',').map((part) => {
    const descending = part.startsWith('-');
    const field = snakeCase(descending ? part.slice(1) : part);
    if (!spec.sorts.includes(field)) {
      throw AppError.badRequest(
        `Cannot sort by "${part}". Allowed: ${spec.sorts.join(', ')}.`,
        { parameter: 'sort' },
      );
    }
    return { field, descending };
  });
}

/** Only parameters a single-record read understands. */
export function assertOnlyParameters(query: RawQuery, allowed: string[]) {
  for (const name of Object.keys(query)) {
    if (!allowed.includes(name)) {
      throw AppError.badRequest(`Unknown query parameter "${name}".`, {
        parameter: name,
      });
    }
  }
}

/**
 * Parses a list request's query string against the resource's spec. Anything
 * unknown or malformed is a 400 naming the parameter, never silently ignored.
 */
export function parseListQuery(
  query: RawQuery,
  spec: ListSpec,
  includes: string[],
): ListQuery {
  const filters: Record<string, FilterValue> = {};
  const unmatchable: Record<string, string> = {};
  for (const name of Object.keys(query)) {
    const filterName = /^filter\[([^\]]+)\]$/.exec(name)?.[1];
    if (filterName !== undefined) {
      // Own properties only: `filter[__proto__]` or `filter[toString]` names
      // no filter, whatever Object.prototype holds.
      const parse = Object.hasOwn(spec.filters, filterName)
        ? spec.filters[filterName]
        : undefined;
      if (!parse) {
        throw AppError.badRequest(
          `Unknown filter "${filterName}". Allowed: ${Object.keys(spec.filters).join(', ') || 'none'}.`,
          { parameter: name },
        );
      }
      const raw = single(query, name) ?? '';
      const value = parse(raw);
      if (value === null) {
        throw AppError.badRequest(`Invalid value for ${name}.`, {
          parameter: name,
        });
      }
      if (value === NO_MATCH) unmatchable[filterName] = raw;
      else filters[filterName] = value;
    } else if (
      !['page[number]', 'page[size]', 'include', 'sort'].includes(name)
    ) {
      throw AppError.badRequest(`Unknown query parameter "${name}".`, {
        parameter: name,
      });
    }
  }
  const sortRaw = single(query, 'sort');
  return {
    page: {
      number: pageParameter(query, 'page[number]', 1, Number.MAX_SAFE_INTEGER),
      size: pageParameter(
        query,
        'page[size]',
        DEFAULT_PAGE_SIZE,
        MAX_PAGE_SIZE,
      ),
    },
    filters,
    unmatchable,
    sort: parseSort(sortRaw || undefined, spec),
    sortParam: sortRaw || spec.defaultSort,
    include: parseInclude(query, includes),
  };
}
