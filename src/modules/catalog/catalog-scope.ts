import { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { ListQuery, Page } from '../../common/list-query';
import { sameNameColumns } from '../../database/list-page';
import { scopedListPage, Tenancy } from '../../database/tenancy';

/**
 * Whose catalog a query sees: a user's stores (API keys) or one store (the
 * hosted checkout), always in one mode. Records outside it do not exist.
 */
export type CatalogScope = Tenancy;

/**
 * Applies a list query's filters (mapped to columns of `alias`) to
 * `builder`, then scopes, sorts (same-named columns) and pages it
 * (`scopedListPage`).
 */
export function loadPage<T extends ObjectLiteral>(
  builder: SelectQueryBuilder<T>,
  alias: string,
  scope: CatalogScope,
  query: ListQuery,
  columns: { filters: Record<string, string>; sorts: string[] },
): Promise<Page<T>> {
  for (const [name, value] of Object.entries(query.filters)) {
    const column = columns.filters[name];
    if (!column) throw new Error(`No column for filter ${name}`);
    builder.andWhere(`${alias}.${column} = :filter_${name}`, {
      [`filter_${name}`]: value,
    });
  }
  return scopedListPage(
    builder,
    alias,
    sameNameColumns(alias, columns.sorts),
    query,
    scope,
  );
}

/** Postgres unique_violation on the named index. */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  const e = error as {
    code?: unknown;
    constraint?: unknown;
    driverError?: { code?: unknown; constraint?: unknown };
  } | null;
  const code = e?.code ?? e?.driverError?.code;
  const name = e?.constraint ?? e?.driverError?.constraint;
  return code === '23505' && name === constraint;
}
