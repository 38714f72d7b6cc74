import { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { ListQuery } from '../../http/json-api/list-query';
import { Page } from '../../http/json-api/resource';

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
 * Applies a list query's filters, sort and page and loads the page with its
 * total. The id tie-breaker follows the last sort key's direction so one
 * index (e.g. `(store_id, test_mode, name, id)`) serves the whole ORDER BY.
 */
export async function loadPage<T extends ObjectLiteral>(
  builder: SelectQueryBuilder<T>,
  alias: string,
  query: ListQuery,
  columns: { filters: Record<string, string>; sorts: Record<string, string> },
): Promise<Page<T>> {
  for (const [name, value] of Object.entries(query.filters)) {
    const column = columns.filters[name];
    if (!column) throw new Error(`No column for filter ${name}`);
    builder.andWhere(`${alias}.${column} = :filter_${name}`, {
      [`filter_${name}`]: value,
    });
  }
  for (const key of query.sort) {
    builder.addOrderBy(
      `${alias}.${columns.sorts[key.field]}`,
      key.descending ? 'DESC' : 'ASC',
    );
  }
  const last = query.sort[query.sort.length - 1];
  builder
    .addOrderBy(`${alias}.id`, last?.descending ? 'DESC' : 'ASC')
    .offset((query.page.number - 1) * query.page.size)
    .limit(query.page.size);
  const [records, total] = await builder.getManyAndCount();
  return { records, total };
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
