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

/**
 * A sale with a tax transaction of its own: an order, or a renewal invoice
 * priced by its own calculation (`identifier`: the order's, then
 * `-invoice-<id>`).
 */
interface TaxedSale extends TaxedOrder {
  column: 'order_id' | 'subscription_invoice_id';
}

const saleOf = (order: TaxedOrder): TaxedSale => ({
  ...order,
  column: 'order_id',
});

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
 * that pays an order or a renewal invoice priced by Stripe Tax (or records
 * its refund) writes a row here, the marker;
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
  owedForSale(manager: EntityManager, order: TaxedOrder): Promise<boolean> {
    return this.oweSale(manager, saleOf(order));
  }

  /**
   * A paid renewal invoice priced by its own calculation: its tax
   * transaction is owed (once, however often its payment is reported).
   */
  async owedForInvoice(
    manager: EntityManager,
    invoiceId: number,
  ): Promise<boolean> {
    const invoice = await this.lockInvoice(manager, invoiceId);
    return invoice ? this.oweSale(manager, invoice) : false;
  }

  private async oweSale(
    manager: EntityManager,
    sale: TaxedSale,
  ): Promise<boolean> {
    const calculation = calculationOf(sale);
    if (!calculation) return false;
    await manager.query(
      `INSERT INTO stripe_tax_records
         (store_id, test_mode, ${sale.column}, kind, reference, calculation_id, created_at)
       VALUES ($1, $2, $3, 'transaction', $4, $5, $6)
       ON CONFLICT (store_id, test_mode, reference) DO NOTHING`,
      [
        sale.storeId,
        sale.testMode,
        sale.id,
        sale.identifier,
        calculation,
        this.clock.now(),
      ],
    );
    return true;
  }

  /**
   * A renewal invoice, locked (its reversals are numbered under that lock),
   * when a calculation of its own priced it; else null (its tax is the
   * subscription's sale's, or none was calculated).
   */
  async lockInvoice(
    manager: EntityManager,
    invoiceId: number,
  ): Promise<TaxedSale | null> {
    const [row] = (await manager.query(
      `SELECT i.id, i.store_id, i.test_mode, o.identifier, i.currency,
              i.tax_rate_source
         FROM subscription_invoices i
         JOIN subscriptions s ON s.id = i.subscription_id
         JOIN orders o ON o.id = s.order_id
        WHERE i.id = $1 AND i.tax_rate_source IS NOT NULL
          FOR UPDATE OF i`,
      [invoiceId],
    )) as {
      id: number;
      store_id: number;
      test_mode: boolean;
      identifier: string;
      currency: string;
      tax_rate_source: string;
    }[];
    return row
      ? {
          column: 'subscription_invoice_id',
          id: row.id,
          storeId: row.store_id,
          testMode: row.test_mode,
          identifier: `${row.identifier}-invoice-${row.id}`,
          currency: row.currency,
          taxRateSource: row.tax_rate_source,
        }
      : null;
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
  owedForRefund(
    manager: EntityManager,
    order: TaxedOrder,
    amount: number,
  ): Promise<boolean> {
    return this.oweReversal(manager, saleOf(order), amount);
  }

  /** A refund of a renewal invoice priced by its own calculation: its reversal is owed. */
  async owedForInvoiceRefund(
    manager: EntityManager,
    invoiceId: number,
    amount: number,
  ): Promise<boolean> {
    const invoice = await this.lockInvoice(manager, invoiceId);
    return invoice ? this.oweReversal(manager, invoice, amount) : false;
  }

  private async oweReversal(
    manager: EntityManager,
    sale: TaxedSale,
    amount: number,
  ): Promise<boolean> {
    if (!calculationOf(sale) || !(amount > 0)) return false;
    const [{ count }] = (await manager.query(
      `SELECT count(*)::int AS count FROM stripe_tax_records
        WHERE ${sale.column} = $1 AND kind = 'reversal'`,
      [sale.id],
    )) as { count: number }[];
    await manager.query(
      `INSERT INTO stripe_tax_records
         (store_id, test_mode, ${sale.column}, kind, reference, refund_amount, created_at)
       VALUES ($1, $2, $3, 'reversal', $4, $5, $6)`,
      [
        sale.storeId,
        sale.testMode,
        sale.id,
        `${sale.identifier}-refund-${count + 1}`,
        amount,
        this.clock.now(),
      ],
    );
    return true;
  }

  /**
   * Records the open rows at Stripe, sales before their reversals. Returns
   * how many were recorded; throws (for the job to be retried) when Stripe
   * failed on any, after trying the others.
   */
  async recordOpen(limit = 100): Promise<number> {
    const rows = (await this.dataSource.query(
      `SELECT r.id, r.store_id, r.test_mode, r.kind, r.reference,
              r.calculation_id, r.refund_amount,
              coalesce(o.currency, i.currency) AS currency,
              sale.stripe_id AS original
         FROM stripe_tax_records r
         LEFT JOIN orders o ON o.id = r.order_id
         LEFT JOIN subscription_invoices i ON i.id = r.subscription_invoice_id
         LEFT JOIN stripe_tax_records sale
           ON sale.kind = 'transaction'
          AND (sale.order_id = r.order_id
               OR sale.subscription_invoice_id = r.subscription_invoice_id)
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
