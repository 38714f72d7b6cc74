import { Injectable, OnModuleInit } from '@nestjs/common';
import {
  CustomerActivity,
  CustomerActivitySource,
  CustomerFigures,
  CustomerRef,
} from '../customer/customer-activity';
import {
  StoreSales,
  StoreSalesSource,
  StoreSalesSources,
} from '../store/store-sales';
import { SubscriptionInvoiceRepository } from './subscription-invoice.repository';

/**
 * What subscription invoices add to a store's revenue and a customer's
 * `total_revenue_currency`: renewals and plan changes as charged, less
 * refunds, and the refunds of initial invoices (whose charge the first order
 * counts). They add no sales: a subscription is sold once, by its order.
 */
@Injectable()
export class InvoiceRevenue
  implements StoreSalesSource, CustomerActivitySource, OnModuleInit
{
  constructor(
    private readonly invoices: SubscriptionInvoiceRepository,
    private readonly activity: CustomerActivity,
    private readonly storeSales: StoreSalesSources,
  ) {}

  onModuleInit() {
    this.activity.register(this);
    this.storeSales.register(this);
  }

  async salesByStore(
    storeIds: number[],
    testMode: boolean,
    since: Date,
  ): Promise<Map<number, Partial<StoreSales>>> {
    const rows = await this.invoices.revenueByStore(storeIds, testMode, since);
    return new Map(
      rows.map((row) => [
        row.storeId,
        { totalRevenue: row.total, thirtyDayRevenue: row.sinceThen },
      ]),
    );
  }

  async figures(
    customers: CustomerRef[],
  ): Promise<Map<number, Partial<CustomerFigures>>> {
    const revenue = await this.invoices.revenueByCustomer(
      customers.map((c) => c.id),
    );
    return new Map(
      [...revenue].map(([id, cents]) => [id, { totalRevenueCurrency: cents }]),
    );
  }
}
