import { randomUUID } from 'node:crypto';
import { INestApplicationContext } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { Transactions } from '../src/database/transactions';
import { computeTotals } from '../src/modules/checkout/pricing';
import { OrderItem } from '../src/modules/order/order-item.entity';
import { Order } from '../src/modules/order/order.entity';
import type {
  NewOrder,
  NewOrderItem,
} from '../src/modules/order/order.service';
import type { BenchState } from './state';

const BATCH = 5_000;

/**
 * Reserves consecutive order numbers in the store's counter (the one
 * purchases number from) for orders in each mode; returns the first.
 */
async function reserveOrderNumbers(
  manager: EntityManager,
  storeId: number,
  orders: { test: number; live: number },
): Promise<number> {
  const count = orders.test + orders.live;
  const rows: { last_order_number: number }[] = await manager.query(
    `INSERT INTO store_order_counters AS c
       (store_id, last_order_number, test_order_count, live_order_count)
     VALUES ($1, $2::integer + $3::integer, $2, $3)
     ON CONFLICT (store_id) DO UPDATE SET
       last_order_number = c.last_order_number + $2::integer + $3::integer,
       test_order_count = c.test_order_count + $2::integer,
       live_order_count = c.live_order_count + $3::integer
     RETURNING c.last_order_number`,
    [storeId, orders.test, orders.live],
  );
  return rows[0].last_order_number - count + 1;
}

/** Multi-row INSERTs (below PostgreSQL's 65,535 bind parameters per statement). */
async function insertMany<T extends Order | OrderItem>(
  manager: EntityManager,
  target: typeof Order | typeof OrderItem,
  rows: Partial<T>[],
): Promise<number[]> {
  const ids: number[] = [];
  for (let start = 0; start < rows.length; start += 1000) {
    const result = await manager
      .createQueryBuilder()
      .insert()
      .into(target)
      .values(rows.slice(start, start + 1000))
      .returning('id')
      .updateEntity(false)
      .execute();
    for (const row of result.raw as { id: number }[]) ids.push(row.id);
  }
  return ids;
}

/**
 * Imports paid one-item orders of one store in the caller's transaction:
 * numbers reserved in one step, rows written with multi-row INSERTs. No
 * events are recorded: seeded history is not a sale to announce.
 */
async function importOrders(
  manager: EntityManager,
  storeId: number,
  entries: { order: NewOrder; item: NewOrderItem }[],
  now: Date,
): Promise<void> {
  const test = entries.filter((entry) => entry.order.testMode).length;
  const first = await reserveOrderNumbers(manager, storeId, {
    test,
    live: entries.length - test,
  });
  const orderIds = await insertMany<Order>(
    manager,
    Order,
    entries.map(({ order }, index) => ({
      ...order,
      identifier: randomUUID(),
      orderNumber: first + index,
      refundedAt: null,
      refundedAmount: 0,
      refundedAmountUsd: 0,
      createdAt: now,
      updatedAt: now,
    })),
  );
  await insertMany<OrderItem>(
    manager,
    OrderItem,
    entries.map(({ order, item }, index) => ({
      ...item,
      orderId: orderIds[index],
      storeId,
      testMode: order.testMode,
      createdAt: now,
      updatedAt: now,
    })),
  );
}

/**
 * The fast path for the 1,000,000-order growth row: paid one-item orders of
 * the seeded catalog for the seeded customers, written by `importOrders`
 * in transactions of 5,000 (about 20× faster than
 * purchases, which serialize on the store's order-number counter).
 */
export async function bulkOrders(
  app: INestApplicationContext,
  state: BenchState,
  count: number,
  customerCount: number,
) {
  const db = app.get(DataSource);
  const variants: {
    id: number;
    product_id: number;
    price_id: number;
    unit_price: number;
    product_name: string;
    variant_name: string;
  }[] = await db.query(
    `SELECT v.id, v.product_id, p.id AS price_id, p.unit_price,
            pr.name AS product_name, v.name AS variant_name
       FROM variants v
       JOIN prices p ON p.id = v.current_price_id
       JOIN products pr ON pr.id = v.product_id
      WHERE v.store_id = $1 AND p.category = 'one_time'
      ORDER BY v.id`,
    [state.storeId],
  );
  const customers: { id: number; email: string; name: string }[] =
    await db.query(
      `SELECT id, email, name FROM customers WHERE store_id = $1 ORDER BY id LIMIT $2`,
      [state.storeId, customerCount],
    );
  if (variants.length === 0 || customers.length === 0)
    throw new Error('bulk orders need the seeded catalog and customers');
  const transactions = app.get(Transactions);
  for (let done = 0; done < count; done += BATCH) {
    const size = Math.min(BATCH, count - done);
    const now = new Date();
    const entries = Array.from({ length: size }, (_, i) => {
      const n = done + i;
      const variant = variants[n % variants.length];
      const customer = customers[n % customers.length];
      const totals = computeTotals({
        currency: 'USD',
        currencyRate: 1,
        unitPrice: variant.unit_price,
        quantity: 1,
        setupFee: 0,
        discount: 0,
        tax: null,
        taxInclusive: false,
      });
      return {
        order: {
          storeId: state.storeId,
          customerId: customer.id,
          testMode: true,
          userName: customer.name,
          userEmail: customer.email,
          currency: totals.currency,
          currencyRate: totals.currencyRate,
          taxName: totals.taxName,
          taxRate: totals.taxRate,
          taxInclusive: totals.taxInclusive,
          status: 'paid' as const,
          subtotal: totals.subtotal,
          discountTotal: totals.discountTotal,
          tax: totals.tax,
          setupFee: totals.setupFee,
          total: totals.total,
          subtotalUsd: totals.subtotalUsd,
          discountTotalUsd: totals.discountTotalUsd,
          taxUsd: totals.taxUsd,
          setupFeeUsd: totals.setupFeeUsd,
          totalUsd: totals.totalUsd,
          billingCountry: 'US',
          billingZip: '10001',
          taxNumber: null,
          checkoutId: null,
          customData: null,
          paymentReference: `bench_${randomUUID()}`,
          failureReason: null,
        },
        item: {
          productId: variant.product_id,
          variantId: variant.id,
          priceId: variant.price_id,
          productName: variant.product_name,
          variantName: variant.variant_name,
          price: variant.unit_price,
          quantity: 1,
        },
      };
    });
    await transactions.run((manager) =>
      importOrders(manager, state.storeId, entries, now),
    );
    if ((done + size) % 100_000 === 0)
      process.stderr.write(`[seed] ${done + size}/${count} orders imported\n`);
  }
}
