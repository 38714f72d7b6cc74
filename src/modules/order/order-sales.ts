import { Injectable, OnModuleInit } from '@nestjs/common';
import {
  CustomerActivity,
  CustomerActivitySource,
  CustomerFigures,
  CustomerRef,
  PortalLists,
} from '../customer/customer-activity';
import { formatMoney } from '../../common/money';
import {
  StoreSales,
  StoreSalesSource,
  StoreSalesSources,
} from '../store/store-sales';
import { orderStatusLabel } from './order-status';
import { OrderReceipts } from './order-receipts';
import { OrderRevenueRepository } from './order-revenue.repository';
import { OrderRepository } from './order.repository';
import { ReceiptExtras } from './receipt-extras';

const PORTAL_ORDERS = 50;

/**
 * What orders tell other modules: a store's sales and their revenue (a
 * StoreSalesSources source) and a customer's revenue and order history (a
 * CustomerActivity source).
 */
@Injectable()
export class OrderSales
  implements StoreSalesSource, CustomerActivitySource, OnModuleInit
{
  constructor(
    private readonly orders: OrderRepository,
    private readonly revenue: OrderRevenueRepository,
    private readonly receipts: OrderReceipts,
    private readonly activity: CustomerActivity,
    private readonly storeSales: StoreSalesSources,
    private readonly extras: ReceiptExtras,
  ) {}

  onModuleInit() {
    this.activity.register(this);
    this.storeSales.register(this);
  }

  async salesByStore(
    storeIds: number[],
    testMode: boolean,
    since: Date,
  ): Promise<Map<number, StoreSales>> {
    const rows = await this.revenue.sales(storeIds, testMode, since);
    return new Map(rows.map(({ storeId, ...sales }) => [storeId, sales]));
  }

  async figures(
    customers: CustomerRef[],
  ): Promise<Map<number, Partial<CustomerFigures>>> {
    const revenue = await this.revenue.revenueByCustomer(
      customers.map((c) => c.id),
    );
    return new Map(
      [...revenue].map(([id, cents]) => [id, { totalRevenueCurrency: cents }]),
    );
  }

  /** The customer's orders, newest first; failed payment attempts are not orders. */
  async portal(customer: CustomerRef): Promise<Partial<PortalLists>> {
    const orders = await this.orders.ofCustomer(customer.id, PORTAL_ORDERS);
    return {
      orders: await Promise.all(
        orders.map(async (order) => ({
          orderNumber: order.orderNumber,
          createdAt: order.createdAt,
          productName: order.firstItem?.productName ?? '',
          status: orderStatusLabel(order.status),
          totalFormatted: formatMoney(order.total, order.currency),
          receiptUrl: this.receipts.url(order.identifier),
          invoiceUrl: await this.extras.invoiceUrl(order),
        })),
      ),
    };
  }
}
