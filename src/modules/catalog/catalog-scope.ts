import { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { ListQuery, Page } from '../../common/list-query';
import {
  listPage,
  sameNameColumns,
  storeScopedListPage,
} from '../../database/list-page';

/**
 * Whose catalog a query sees: a user's stores (API keys) or one store (the
 * hosted checkout), always in one mode. Records outside it do not exist.
 */
export interface CatalogScope {
  testMode: boolean;
  userId?: number;
  storeId?: number;
}

/** Restricts `alias` (a table with store_id and test_mode) to the scope. */
export function whereInScope<T extends ObjectLiteral>(
  builder: SelectQueryBuilder<T>,
  alias: string,
  scope: CatalogScope,
): SelectQueryBuilder<T> {
  builder.andWhere(`${alias}.test_mode = :scopeTestMode`, {
    scopeTestMode: scope.testMode,
  });
  if (scope.userId !== undefined) {
    builder.andWhere(
      `${alias}.store_id IN (SELECT scope_store.id FROM stores scope_store WHERE scope_store.user_id = :scopeUserId)`,
      { scopeUserId: scope.userId },
    );
  }
  if (scope.storeId !== undefined) {
    builder.andWhere(`${alias}.store_id = :scopeStoreId`, {
      scopeStoreId: scope.storeId,
    });
  }
  return builder;
}

/**
 * Scopes `builder` (see `whereInScope`), applies a list query's filters
 * (mapped to columns of `alias`), then its sort (same-named columns) and page.
 */
export function loadPage<T extends ObjectLiteral>(
  builder: SelectQueryBuilder<T>,
  alias: string,
  scope: CatalogScope,
  query: ListQuery,
  columns: { filters: Record<string, string>; sorts: string[] },
): Promise<Page<T>> {
  whereInScope(builder, alias, scope);
  for (const [name, value] of Object.entries(query.filters)) {
    const column = columns.filters[name];
    if (!column) throw new Error(`No column for filter ${name}`);
    builder.andWhere(`${alias}.${column} = :filter_${name}`, {
      [`filter_${name}`]: value,
    });
  }
  const sorts = sameNameColumns(alias, columns.sorts);
  return scope.userId === undefined
    ? listPage(builder, alias, sorts, query)
    : storeScopedListPage(builder, alias, sorts, query, scope.userId);
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
