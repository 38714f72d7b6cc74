import type { RawQuery } from '../../common/list-query';
import { TaxReportErrors } from './tax-report.errors';

export interface TaxReportQuery {
  storeId: number;
  period: string;
}

const KNOWN = new Set(['filter[store_id]', 'filter[period]']);

/**
 * `filter[store_id]` and `filter[period]` from a query string: each
 * required, once; any other parameter is a 400 (as an unknown list filter
 * is). A store id that cannot be an id is a store that does not exist.
 */
export function taxReportQuery(query: RawQuery): TaxReportQuery {
  for (const name of Object.keys(query))
    if (!KNOWN.has(name)) throw TaxReportErrors.unknownParameter(name);
  const store = single(query['filter[store_id]']);
  const period = single(query['filter[period]']);
  if (store === undefined || store.trim() === '')
    throw TaxReportErrors.storeRequired();
  if (period === undefined || period.trim() === '')
    throw TaxReportErrors.periodRequired();
  const storeId = /^\d{1,10}$/.test(store.trim()) ? Number(store) : NaN;
  if (!Number.isSafeInteger(storeId) || storeId < 1 || storeId > 2_147_483_647)
    throw TaxReportErrors.storeNotFound();
  return { storeId, period };
}

function single(value: string | string[] | undefined): string | undefined {
  if (Array.isArray(value)) return value.length === 1 ? value[0] : '\u0000';
  return value;
}
