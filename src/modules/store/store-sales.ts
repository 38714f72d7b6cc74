import { Injectable } from '@nestjs/common';
import { Store } from './store.entity';

/**
 * Sales figures of a store. A sale is a paid order (a purchase; a partly
 * refunded one still counts, a fully refunded one does not); revenue is
 * every paid charge in USD cents, orders and subscription invoices, less
 * refunds. Thirty-day figures count what was charged in the last 30 days.
 */
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

/** Whether the store's Stripe account is connected in the viewer's mode (never the keys). */
export interface StoreStripe {
  mode: 'test' | 'live';
  configured: boolean;
}

export type StoreView = Store & { sales: StoreSales; stripe: StoreStripe };

/**
 * A module that knows part of a store's sales: orders (sales and their
 * revenue) and billing (the revenue of subscription invoices). Each
 * registers with `StoreSalesSources` in its `onModuleInit` (stores cannot
 * depend on those modules: they depend on stores).
 */
export interface StoreSalesSource {
  /** This source's part for these stores; missing entries and fields count as zero. */
  salesByStore(
    storeIds: number[],
    testMode: boolean,
    since: Date,
  ): Promise<Map<number, Partial<StoreSales>>>;
}

const THIRTY_DAYS_MS = 30 * 24 * 60 * 60 * 1000;

/** The registered sources, summed. */
@Injectable()
export class StoreSalesSources {
  private readonly sources: StoreSalesSource[] = [];

  register(source: StoreSalesSource) {
    if (!this.sources.includes(source)) this.sources.push(source);
  }

  async salesByStore(
    storeIds: number[],
    testMode: boolean,
    now: Date,
  ): Promise<Map<number, StoreSales>> {
    const combined = new Map<number, StoreSales>();
    if (storeIds.length === 0) return combined;
    const since = new Date(now.getTime() - THIRTY_DAYS_MS);
    const parts = await Promise.all(
      this.sources.map((source) =>
        source.salesByStore(storeIds, testMode, since),
      ),
    );
    for (const id of storeIds) {
      const total = { ...NO_SALES };
      for (const part of parts) {
        const sales = part.get(id);
        if (!sales) continue;
        total.totalSales += sales.totalSales ?? 0;
        total.totalRevenue += sales.totalRevenue ?? 0;
        total.thirtyDaySales += sales.thirtyDaySales ?? 0;
        total.thirtyDayRevenue += sales.thirtyDayRevenue ?? 0;
      }
      combined.set(id, total);
    }
    return combined;
  }
}
