import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { transactionQuery } from '../../database/pool-query';

/** The records that carry an invoice number. */
export type InvoicedTable = 'orders' | 'subscription_invoices';

/**
 * The invoice number as printed: the year, a dash and the store's count in
 * that year and mode, six digits or more (`2026-000042`); test mode's
 * sequence is its own and says so (`TEST-2026-000001`).
 */
export function formatInvoiceNumber(
  testMode: boolean,
  year: number,
  n: number,
): string {
  return `${testMode ? 'TEST-' : ''}${year}-${String(n).padStart(6, '0')}`;
}

const FORMAT_SQL = `CASE WHEN $2 THEN 'TEST-' ELSE '' END || $3::integer || '-' ||
  lpad(counter.last_number::text, greatest(6, length(counter.last_number::text)), '0')`;

/**
 * Each store's gap-free invoice numbers (per mode and calendar year, UTC),
 * shared by orders and subscription invoices. A number is drawn in the
 * transaction that makes the sale paid, from the store's counter row
 * (`store_invoice_counters`), which that statement locks until the commit:
 * concurrent sales of a store queue there and take consecutive numbers,
 * and a rollback gives the number back. So no number is skipped or given
 * twice.
 */
@Injectable()
export class InvoiceNumbers {
  /**
   * Draws the store's next number and writes it on row `id` of `table`, in
   * one statement; returns the number. Call it inside the transaction that
   * marks the record paid, as late as that allows (the counter row stays
   * locked until the commit).
   */
  async assign(
    manager: EntityManager,
    table: InvoicedTable,
    record: { id: number; storeId: number; testMode: boolean },
    now: Date,
  ): Promise<string> {
    const rows = await transactionQuery<{ invoice_number: string }>(
      manager,
      `WITH counter AS (
         INSERT INTO store_invoice_counters AS c (store_id, test_mode, year, last_number)
         VALUES ($1, $2, $3, 1)
         ON CONFLICT (store_id, test_mode, year)
           DO UPDATE SET last_number = c.last_number + 1
         RETURNING c.last_number)
       UPDATE ${table} r SET invoice_number = ${FORMAT_SQL}
         FROM counter WHERE r.id = $4
       RETURNING r.invoice_number`,
      [record.storeId, record.testMode, now.getUTCFullYear(), record.id],
      `${table}.assign-invoice-number`,
    );
    if (rows.length !== 1)
      throw new Error(`${table} ${record.id}: no row to number`);
    return rows[0].invoice_number;
  }
}
