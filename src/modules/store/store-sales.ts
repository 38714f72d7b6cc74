import { Store } from './store.entity';

/** Sales figures of a store, in USD cents, computed from its paid orders. */
export interface StoreSales {
  totalSales: number;
  totalRevenue: number;
  thirtyDaySales: number;
  thirtyDayRevenue: number;
}

export const NO_SALES: StoreSales = {
  totalSales: 0,
  totalRevenue: 0,
  thirtyDaySales: 0,
  thirtyDayRevenue: 0,
};

export type StoreView = Store & { sales: StoreSales };

export const STORE_SALES_SOURCE = Symbol('STORE_SALES_SOURCE');

/** Implemented by the order module, which owns orders. */
export interface StoreSalesSource {
  salesByStore(
    storeIds: number[],
    testMode: boolean,
    now: Date,
  ): Promise<Map<number, StoreSales>>;
}
