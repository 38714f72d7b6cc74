import { AppError } from '../../common/app-error';
import {
  FilterParser,
  FilterValue,
  ListQuery,
  NO_MATCH,
  RawQuery,
  SortKey,
} from '../../common/list-query';
import { HttpErrorCodes } from '../errors/http-error-codes';

/** What a list endpoint accepts, declared once per resource. */
export interface ListSpec {
  filters: Record<string, FilterParser>;
  /** Attribute names the list can be sorted by (snake_case). */
  sorts: string[];
  /** The default `sort` value, spelled as the reference API spells it in links. */
  defaultSort: string;
}

export const DEFAULT_PAGE_SIZE = 10;
export const MAX_PAGE_SIZE = 100;

function single(query: RawQuery, name: string): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) {
    throw AppError.badRequest(
      `The parameter ${name} may be given only once.`,
      { parameter: name },
      HttpErrorCodes.repeatedParameter,
    );
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
      HttpErrorCodes.invalidParameter,
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
        HttpErrorCodes.invalidParameter,
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
        HttpErrorCodes.invalidParameter,
      );
    }
    return { field, descending };
  });
}

/** Only parameters a single-record read understands. */
export function assertOnlyParameters(query: RawQuery, allowed: string[]) {
  for (const name of Object.keys(query)) {
    if (!allowed.includes(name)) {
      throw AppError.badRequest(
        `Unknown query parameter "${name}".`,
        { parameter: name },
        HttpErrorCodes.unknownParameter,
      );
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
          HttpErrorCodes.unknownParameter,
        );
      }
      const raw = single(query, name) ?? '';
      const value = parse(raw);
      if (value === null) {
        throw AppError.badRequest(
          `Invalid value for ${name}.`,
          { parameter: name },
          HttpErrorCodes.invalidParameter,
        );
      }
      if (value === NO_MATCH) unmatchable[filterName] = raw;
      else filters[filterName] = value;
    } else if (
      !['page[number]', 'page[size]', 'include', 'sort'].includes(name)
    ) {
      throw AppError.badRequest(
        `Unknown query parameter "${name}".`,
        { parameter: name },
        HttpErrorCodes.unknownParameter,
      );
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
