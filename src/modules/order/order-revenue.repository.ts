import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { Order } from './order.entity';

export interface SalesRow {
  storeId: number;
  totalSales: number;
  totalRevenue: number;
  thirtyDaySales: number;
  thirtyDayRevenue: number;
}

/** Revenue figures over orders, for stores and customers the caller resolved in its tenancy. */
@Injectable()
export class OrderRevenueRepository {
  constructor(
    @InjectRepository(Order) private readonly orders: Repository<Order>,
  ) {}

  /**
   * Sales figures in USD cents: paid orders, partly refunded ones included
   * (net of their refunds), all time and the last 30 days.
   */
  async sales(
    storeIds: number[],
    testMode: boolean,
    since: Date,
  ): Promise<SalesRow[]> {
    if (storeIds.length === 0) return [];
    const rows: {
      store_id: number;
      total_sales: string;
      total_revenue: string;
      thirty_day_sales: string;
      thirty_day_revenue: string;
    }[] = await this.orders.query(
      `SELECT store_id,
              count(*) AS total_sales,
              coalesce(sum(total_usd - refunded_amount_usd), 0) AS total_revenue,
              count(*) FILTER (WHERE created_at >= $3) AS thirty_day_sales,
              coalesce(sum(total_usd - refunded_amount_usd) FILTER (WHERE created_at >= $3), 0) AS thirty_day_revenue
         FROM orders
        WHERE store_id = ANY($1) AND test_mode = $2 AND status = 'paid'
        GROUP BY store_id`,
      [storeIds, testMode, since],
    );
    return rows.map((row) => ({
      storeId: row.store_id,
      totalSales: Number(row.total_sales),
      totalRevenue: Number(row.total_revenue),
      thirtyDaySales: Number(row.thirty_day_sales),
      thirtyDayRevenue: Number(row.thirty_day_revenue),
    }));
  }

  /** Net paid revenue in USD cents per customer. */
  async revenueByCustomer(customerIds: number[]): Promise<Map<number, number>> {
    if (customerIds.length === 0) return new Map();
    const rows: { customer_id: number; revenue: string }[] =
      await this.orders.query(
        `SELECT customer_id, coalesce(sum(total_usd - refunded_amount_usd), 0) AS revenue
           FROM orders
          WHERE customer_id = ANY($1) AND status = 'paid'
          GROUP BY customer_id`,
        [customerIds],
      );
    return new Map(rows.map((r) => [r.customer_id, Number(r.revenue)]));
  }
}
