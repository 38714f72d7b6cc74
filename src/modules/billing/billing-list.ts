import { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { FilterValue, ListQuery, Page } from '../../common/list-query';
import { Principal } from '../../common/principal';
import { sameNameColumns } from '../../database/list-page';
import { scopedListPage } from '../../database/tenancy';

export const CREATED_UPDATED_SORTS = ['created_at', 'updated_at'];

/** Address filters match the whole address in any case (filterParsers.email), on `lower()` indexes. */
const CASELESS_FILTERS = new Set(['user_email']);

/** Exact-match filters; `columns` maps filter names to columns (all filters are indexed with test_mode). */
export function applyFilters<T extends ObjectLiteral>(
  builder: SelectQueryBuilder<T>,
  alias: string,
  filters: Record<string, FilterValue | FilterValue[]>,
  columns: Record<string, string>,
): SelectQueryBuilder<T> {
  for (const [name, value] of Object.entries(filters)) {
    const column = `${alias}.${columns[name] ?? name}`;
    const param = `f_${name}`;
    if (CASELESS_FILTERS.has(name) && !Array.isArray(value)) {
      builder.andWhere(`lower(${column}) = lower(:${param})`, {
        [param]: value,
      });
    } else if (Array.isArray(value)) {
      builder.andWhere(`${column} IN (:...${param})`, { [param]: value });
    } else {
      builder.andWhere(`${column} = :${param}`, { [param]: value });
    }
  }
  return builder;
}

/**
 * Scoped to the principal, sorted by created_at or updated_at and paged
 * (see `scopedListPage`).
 */
export function pageOf<T extends ObjectLiteral>(
  builder: SelectQueryBuilder<T>,
  alias: string,
  query: ListQuery,
  principal: Principal,
): Promise<Page<T>> {
  return scopedListPage(
    builder,
    alias,
    sameNameColumns(alias, CREATED_UPDATED_SORTS),
    query,
    principal,
  );
}

/** Newest first, for includes and nested lists loaded in full. */
export function newestFirst<T extends ObjectLiteral>(
  builder: SelectQueryBuilder<T>,
  alias: string,
): Promise<T[]> {
  return builder
    .orderBy(`${alias}.created_at`, 'DESC')
    .addOrderBy(`${alias}.id`, 'DESC')
    .getMany();
}
