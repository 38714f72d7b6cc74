import { randomUUID } from 'node:crypto';
import { INestApplicationContext } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Transactions } from '../src/database/transactions';
import { computeTotals } from '../src/modules/checkout/pricing';
import { OrderService } from '../src/modules/order/order.service';
import type { BenchState } from './state';

const BATCH = 5_000;

/**
 * The fast path for the 1,000,000-order growth row: paid one-item orders of
 * the seeded catalog for the seeded customers, written through
 * OrderService.importBulk in transactions of 5,000 (about 20× faster than
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
  const orders = app.get(OrderService);
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
      orders.importBulk(manager, state.storeId, entries, now),
    );
    if ((done + size) % 100_000 === 0)
      process.stderr.write(`[seed] ${done + size}/${count} orders imported\n`);
  }
}
