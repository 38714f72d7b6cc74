import { Injectable, Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { Clock } from '../../common/clock';
import { toStripeAmount } from '../payment/stripe-amounts';
import { STRIPE_TAX_SOURCE } from './tax-engine';
import { describe, StripeTaxService } from './stripe-tax.service';

/** The order fields a tax record is made from. */
export interface TaxedOrder {
  id: number;
  storeId: number;
  testMode: boolean;
  identifier: string;
  currency: string;
  taxRateSource: string | null;
}

interface OpenRecord {
  id: number;
  store_id: number;
  test_mode: boolean;
  kind: 'transaction' | 'reversal';
  reference: string;
  calculation_id: string | null;
  refund_amount: number | null;
  currency: string;
  /** The sale's Stripe transaction, for a reversal (null until recorded). */
  original: string | null;
}

/** The Stripe Tax calculation an order was priced with, from its evidence. */
export function calculationOf(order: TaxedOrder): string | null {
  const prefix = `${STRIPE_TAX_SOURCE}:`;
  return order.taxRateSource?.startsWith(prefix)
    ? order.taxRateSource.slice(prefix.length)
    : null;
}

/**
 * The tax transactions and reversals owed to Stripe Tax. The transaction
 * that pays an order (or records its refund) writes a row here, the marker;
 * the worker then calls Stripe outside any transaction with the row's
 * reference as Stripe's reference and idempotency key, and marks the row
 * recorded only where it still is open: two workers, a retried job or a
 * crash between the call and the mark all end in one transaction at Stripe.
 */
@Injectable()
export class StripeTaxRecords {
  private readonly logger = new Logger(StripeTaxRecords.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly stripeTax: StripeTaxService,
    private readonly clock: Clock,
  ) {}

  /** A paid order priced by Stripe Tax: its tax transaction is owed (once). */
  async owedForSale(manager: EntityManager, order: TaxedOrder): Promise<void> {
    const calculation = calculationOf(order);
    if (!calculation) return;
    await manager.query(
      `INSERT INTO stripe_tax_records
         (store_id, test_mode, order_id, kind, reference, calculation_id, created_at)
       VALUES ($1, $2, $3, 'transaction', $4, $5, $6)
       ON CONFLICT (store_id, test_mode, reference) DO NOTHING`,
      [
        order.storeId,
        order.testMode,
        order.id,
        order.identifier,
        calculation,
        this.clock.now(),
      ],
    );
  }

  /**
   * The order a subscription was bought with, locked (reversals of its sale
   * are numbered under that lock), as a tax record is made from it.
   */
  async lockOrderOf(
    manager: EntityManager,
    subscriptionId: number,
  ): Promise<TaxedOrder | null> {
    const [row] = (await manager.query(
      `SELECT o.id, o.store_id, o.test_mode, o.identifier, o.currency,
              o.tax_rate_source
         FROM subscriptions s JOIN orders o ON o.id = s.order_id
        WHERE s.id = $1
          FOR UPDATE OF o`,
      [subscriptionId],
    )) as {
      id: number;
      store_id: number;
      test_mode: boolean;
      identifier: string;
      currency: string;
      tax_rate_source: string | null;
    }[];
    return row
      ? {
          id: row.id,
          storeId: row.store_id,
          testMode: row.test_mode,
          identifier: row.identifier,
          currency: row.currency,
          taxRateSource: row.tax_rate_source,
        }
      : null;
  }

  /**
   * A refund of such an order (or of its subscription's initial invoice):
   * its reversal is owed. Called in the refund's
   * transaction, under the order's row lock, so the count numbers refunds.
   */
  async owedForRefund(
    manager: EntityManager,
    order: TaxedOrder,
    amount: number,
  ): Promise<void> {
    if (!calculationOf(order) || !(amount > 0)) return;
    const [{ count }] = (await manager.query(
      `SELECT count(*)::int AS count FROM stripe_tax_records
        WHERE order_id = $1 AND kind = 'reversal'`,
      [order.id],
    )) as { count: number }[];
    await manager.query(
      `INSERT INTO stripe_tax_records
         (store_id, test_mode, order_id, kind, reference, refund_amount, created_at)
       VALUES ($1, $2, $3, 'reversal', $4, $5, $6)`,
      [
        order.storeId,
        order.testMode,
        order.id,
        `${order.identifier}-refund-${count + 1}`,
        amount,
        this.clock.now(),
      ],
    );
  }

  /**
   * Records the open rows at Stripe, sales before their reversals. Returns
   * how many were recorded; throws (for the job to be retried) when Stripe
   * failed on any, after trying the others.
   */
  async recordOpen(limit = 100): Promise<number> {
    const rows = (await this.dataSource.query(
      `SELECT r.id, r.store_id, r.test_mode, r.kind, r.reference,
              r.calculation_id, r.refund_amount, o.currency,
              sale.stripe_id AS original
         FROM stripe_tax_records r
         JOIN orders o ON o.id = r.order_id
         LEFT JOIN stripe_tax_records sale
           ON sale.order_id = r.order_id AND sale.kind = 'transaction'
        WHERE r.recorded_at IS NULL
        ORDER BY r.kind DESC, r.created_at, r.id
        LIMIT $1`,
      [limit],
    )) as OpenRecord[];
    let recorded = 0;
    let failed: unknown = null;
    for (const row of rows) {
      if (row.kind === 'reversal' && !row.original) continue;
      try {
        const stripeId =
          row.kind === 'transaction'
            ? await this.stripeTax.recordSale(
                row.store_id,
                row.test_mode,
                row.calculation_id!,
                row.reference,
              )
            : await this.stripeTax.recordReversal(
                row.store_id,
                row.test_mode,
                row.original!,
                row.reference,
                toStripeAmount(row.refund_amount!, row.currency),
              );
        await this.dataSource.query(
          `UPDATE stripe_tax_records
              SET stripe_id = $2, recorded_at = $3, last_error = NULL
            WHERE id = $1 AND recorded_at IS NULL`,
          [row.id, stripeId, this.clock.now()],
        );
        recorded++;
      } catch (error) {
        failed = error;
        const message = describe(error).slice(0, 500);
        this.logger.warn(
          `Stripe Tax ${row.kind} ${row.reference} not recorded: ${message}`,
        );
        await this.dataSource.query(
          `UPDATE stripe_tax_records
              SET attempts = attempts + 1, last_error = $2
            WHERE id = $1`,
          [row.id, message],
        );
      }
    }
    if (failed) throw failed;
    return recorded;
  }
}
