import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Principal } from '../../common/principal';
import { inOwnedStores, sqlScope } from '../../database/tenancy';

/** One group of a source's sales and refunds in a period, as the database sums them. */
export interface TaxReportSourceRow {
  country: string | null;
  region: string | null;
  taxName: string | null;
  /** Percent, as PostgreSQL numeric text ("19.0000"). */
  taxRate: string;
  reverseCharge: boolean;
  currency: string;
  sales: number;
  taxableAmount: number;
  tax: number;
  refunds: number;
  refundedTaxableAmount: number;
  refundedTax: number;
}

export interface TaxReportStore {
  id: number;
  name: string;
  currency: string;
  country: string;
}

/** The payment-attempt purposes the order and invoice refunds are recorded under. */
const ORDER_REFUND = 'order_refund';
const INVOICE_REFUND = 'invoice_refund';

/**
 * What one refund gives back of its sale's tax: the money module's
 * `refundedTax` (the tax's share of everything refunded so far, rounded half
 * up once) after this refund less the same before it, so a sale's refunds
 * add up to exactly its `refunded_tax`. `share(t, p, w)` is
 * `(2·t·p + w) div (2·w)` over non-negative integers.
 */
const REFUND_TAX = `CASE WHEN s.total > 0 THEN
    (2 * s.tax::bigint * least(r.refunded_after, s.total) + s.total) / (2 * s.total::bigint)
  - (2 * s.tax::bigint * least(r.refunded_after - r.amount, s.total) + s.total) / (2 * s.total::bigint)
  ELSE 0 END`;

const GROUP_KEY = `country, region, tax_name, tax_rate, reverse_charge, currency`;

/**
 * A source's sales and refunds in one statement: `sales` (the charged
 * records made in the period, with their group's columns as `s`) and
 * `refunds` (each settled refund attempt of `purpose` in the period, with
 * the running total of its record's refunds up to and including it, from
 * every refund of the records refunded in the period).
 */
function reportSql(options: {
  scope: (alias: string) => string;
  from: string;
  to: string;
  purpose: string;
  /** `SELECT … FROM …` of the source's records as `s`, with the group columns, `tax` and `total`. */
  records: string;
  /** The source's condition for a record that counts as a sale. */
  sold: string;
}): string {
  const { scope, from, to, purpose, records, sold } = options;
  return `
    WITH refunded AS (
      SELECT a.subject_id, a.amount, a.updated_at,
             sum(a.amount) OVER (PARTITION BY a.subject_id
                                 ORDER BY a.updated_at, a.id) AS refunded_after
        FROM payment_attempts a
       WHERE a.purpose = '${purpose}' AND a.kind = 'refund' AND a.status = 'succeeded'
         AND a.subject_id IN (
           SELECT p.subject_id FROM payment_attempts p
            WHERE ${scope('p')} AND p.kind = 'refund' AND p.status = 'succeeded'
              AND p.purpose = '${purpose}'
              AND p.updated_at >= ${from} AND p.updated_at < ${to})
    ),
    entries AS (
      SELECT ${GROUP_KEY}, 1 AS sales, s.total - s.tax AS taxable_amount, s.tax,
             0 AS refunds, 0 AS refunded_amount, 0 AS refunded_tax
        FROM (${records}) s
       WHERE ${sold} AND s.created_at >= ${from} AND s.created_at < ${to}
      UNION ALL
      SELECT ${GROUP_KEY}, 0, 0, 0, 1, r.amount, ${REFUND_TAX}
        FROM refunded r JOIN (${records}) s ON s.id = r.subject_id
       WHERE r.updated_at >= ${from} AND r.updated_at < ${to}
    )
    SELECT ${GROUP_KEY},
           sum(sales)::int AS sales,
           sum(taxable_amount)::bigint AS taxable_amount,
           sum(tax)::bigint AS tax,
           sum(refunds)::int AS refunds,
           sum(refunded_amount - refunded_tax)::bigint AS refunded_taxable_amount,
           sum(refunded_tax)::bigint AS refunded_tax
      FROM entries
     GROUP BY ${GROUP_KEY}`;
}

interface RawRow {
  country: string | null;
  region: string | null;
  tax_name: string | null;
  tax_rate: string;
  reverse_charge: boolean;
  currency: string;
  sales: number;
  taxable_amount: string;
  tax: string;
  refunds: number;
  refunded_taxable_amount: string;
  refunded_tax: string;
}

/** Every query of the tax reports. */
@Injectable()
export class TaxReportRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** One of the caller's stores (stores are visible in both modes), or null. */
  async findStore(
    owner: Principal,
    storeId: number,
  ): Promise<TaxReportStore | null> {
    const params: unknown[] = [storeId];
    const rows: TaxReportStore[] = await this.dataSource.query(
      `SELECT id, name, currency, country FROM stores
        WHERE id = $1 AND ${inOwnedStores('id', owner, params)}`,
      params,
    );
    return rows[0] ?? null;
  }

  /**
   * Orders: charged (`paid`, or `refunded` since) orders made in the
   * period, by the buyer's country and region, the tax they took, and
   * whether it was a reverse charge; and the refunds settled in the period.
   * The store's orders by `orders_store_created_idx`, its refunds by
   * `payment_attempts_settled_refunds`.
   */
  async orders(
    owner: Principal,
    storeId: number,
    from: Date,
    to: Date,
  ): Promise<TaxReportSourceRow[]> {
    const params: unknown[] = [];
    const scope = sqlScope(
      { userId: owner.userId, testMode: owner.testMode, storeId },
      params,
    );
    const sql = reportSql({
      scope: (alias) => scope.on(alias),
      from: `$${params.push(from)}`,
      to: `$${params.push(to)}`,
      purpose: ORDER_REFUND,
      records: `SELECT o.id, o.created_at, o.status, o.tax, o.total,
                       o.billing_country AS country, o.billing_region AS region,
                       o.tax_name, o.tax_rate,
                       coalesce(o.tax_rate_source = 'reverse_charge', false) AS reverse_charge,
                       o.currency
                  FROM orders o WHERE ${scope.on('o')}`,
      sold: `s.status IN ('paid', 'refunded')`,
    });
    return this.rows(sql, params);
  }

  /**
   * Subscription invoices: renewal and plan-change invoices charged in the
   * period (an initial invoice charges what its order did, and the order
   * counts it), with the buyer's location and reverse charge of the
   * subscription's order and the tax the invoice froze; and the refunds of
   * any invoice settled in the period (initial ones included: their order
   * does not record them).
   */
  async invoices(
    owner: Principal,
    storeId: number,
    from: Date,
    to: Date,
  ): Promise<TaxReportSourceRow[]> {
    const params: unknown[] = [];
    const scope = sqlScope(
      { userId: owner.userId, testMode: owner.testMode, storeId },
      params,
    );
    const sql = reportSql({
      scope: (alias) => scope.on(alias),
      from: `$${params.push(from)}`,
      to: `$${params.push(to)}`,
      purpose: INVOICE_REFUND,
      records: `SELECT i.id, i.created_at, i.status, i.billing_reason, i.tax, i.total,
                       o.billing_country AS country, o.billing_region AS region,
                       i.tax_name, i.tax_rate,
                       coalesce(o.tax_rate_source = 'reverse_charge', false) AS reverse_charge,
                       i.currency
                  FROM subscription_invoices i
                  JOIN subscriptions sub ON sub.id = i.subscription_id
                  JOIN orders o ON o.id = sub.order_id
                 WHERE ${scope.on('i')}`,
      sold: `s.status IN ('paid', 'refunded') AND s.billing_reason <> 'initial'`,
    });
    return this.rows(sql, params);
  }

  private async rows(
    sql: string,
    params: unknown[],
  ): Promise<TaxReportSourceRow[]> {
    const rows: RawRow[] = await this.dataSource.query(sql, params);
    return rows.map((row) => ({
      country: row.country,
      region: row.region,
      taxName: row.tax_name,
      taxRate: row.tax_rate,
      reverseCharge: row.reverse_charge,
      currency: row.currency,
      sales: Number(row.sales),
      taxableAmount: Number(row.taxable_amount),
      tax: Number(row.tax),
      refunds: Number(row.refunds),
      refundedTaxableAmount: Number(row.refunded_taxable_amount),
      refundedTax: Number(row.refunded_tax),
    }));
  }
}
