import { AppError } from '../../common/app-error';
import {
  FilterParser,
  PageCursor,
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
  /** Whether the list also pages by cursor (`page[after]`/`page[before]`). */
  cursors?: boolean;
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

/**
 * A record's cursor: opaque to clients (base64url of a small JSON object),
 * so what it holds may change without breaking them.
 */
export function encodeCursor(id: string | number): string {
  return Buffer.from(JSON.stringify({ id: Number(id) })).toString('base64url');
}

function decodeCursor(raw: string, name: string): number | null {
  if (raw === '' && name === 'page[after]') return null;
  let id: unknown;
  try {
    id = (
      JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as {
        id?: unknown;
      } | null
    )?.id;
  } catch {
    id = undefined;
  }
  if (
    !/^[A-Za-z0-9_-]{1,64}$/.test(raw) ||
    typeof id !== 'number' ||
    !Number.isSafeInteger(id) ||
    id < 1
  ) {
    throw AppError.badRequest(
      `${name} must be a cursor from this list's links.`,
      { parameter: name },
      HttpErrorCodes.invalidParameter,
    );
  }
  return id;
}

/**
 * `page[after]`/`page[before]` on a list that pages by cursor. One of them
 * at most, never with `page[number]`, and only with a sort whose keys all
 * go one way (a keyset is compared as one row).
 */
function parseCursor(
  query: RawQuery,
  spec: ListSpec,
  sort: SortKey[],
): PageCursor | undefined {
  const given = (['page[after]', 'page[before]'] as const).filter(
    (name) => query[name] !== undefined,
  );
  if (given.length === 0) return undefined;
  const [name] = given;
  if (!spec.cursors) {
    throw AppError.badRequest(
      `Unknown query parameter "${name}".`,
      { parameter: name },
      HttpErrorCodes.unknownParameter,
    );
  }
  if (given.length > 1 || query['page[number]'] !== undefined) {
    throw AppError.badRequest(
      `${name} cannot be combined with ${given.length > 1 ? given[1] : 'page[number]'}.`,
      { parameter: name },
      HttpErrorCodes.invalidParameter,
    );
  }
  if (sort.some((key) => key.descending !== sort[0].descending)) {
    throw AppError.badRequest(
      `${name} needs a sort whose attributes are all ascending or all descending.`,
      { parameter: name },
      HttpErrorCodes.invalidParameter,
    );
  }
  return {
    direction: name === 'page[after]' ? 'after' : 'before',
    id: decodeCursor(single(query, name) ?? '', name),
  };
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
      ![
        'page[number]',
        'page[size]',
        'page[after]',
        'page[before]',
        'include',
        'sort',
      ].includes(name)
    ) {
      throw AppError.badRequest(
        `Unknown query parameter "${name}".`,
        { parameter: name },
        HttpErrorCodes.unknownParameter,
      );
    }
  }
  const sortRaw = single(query, 'sort');
  const sort = parseSort(sortRaw || undefined, spec);
  const cursor = parseCursor(query, spec, sort);
  return {
    page: {
      ...(cursor ? { cursor } : {}),
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
    sort,
    sortParam: sortRaw || spec.defaultSort,
    include: parseInclude(query, includes),
  };
}
