import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { commitWith, transactionQuery } from '../../database/pool-query';

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
 * What a record carries as its invoice number in the transaction that makes
 * it paid, until `InvoiceNumbers.assign` replaces it as that transaction's
 * last statement: in its own row, in the rows that copied it (a
 * subscription's initial invoice is its order's sale) and in the outbox
 * events that rendered it (listed by `Outbox.watch`/`carrying`).
 */
export function invoiceNumberPlaceholder(): string {
  return `pending-${randomUUID()}`;
}

/**
 * Each store's gap-free invoice numbers (per mode and calendar year, UTC),
 * shared by orders and subscription invoices. A number is drawn in the
 * transaction that makes the sale paid, from the store's counter row
 * (`store_invoice_counters`), which that statement locks until the commit:
 * concurrent sales of a store queue there and take consecutive numbers,
 * and a rollback gives the number back. So no number is skipped or given
 * twice. As the lock serialises the store's sales, the number is drawn by
 * the transaction's last statement: until then the record carries a
 * placeholder (`invoiceNumberPlaceholder`), which that statement replaces.
 */
@Injectable()
export class InvoiceNumbers {
  /**
   * Draws the store's next number and writes it on row `id` of `table`, in
   * one statement; returns the number. Call it inside the transaction that
   * marks the record paid (the counter row stays locked until the commit).
   * With `replace`, the same statement puts the number where the
   * transaction wrote `replace.placeholder` before: an order's subscription
   * initial invoice, and the events `replace.events`.
   */
  async assign(
    manager: EntityManager,
    table: InvoicedTable,
    record: { id: number; storeId: number; testMode: boolean },
    now: Date,
    replace?: { placeholder: string; events: string[] },
  ): Promise<string> {
    const { sql, parameters, name } = this.statement(
      table,
      record,
      now,
      replace,
    );
    return this.numberOf(
      table,
      record,
      await transactionQuery<{ invoice_number: string }>(
        manager,
        sql,
        parameters,
        name,
      ),
    );
  }

  /**
   * `assign` as the transaction's last statement, sent with its COMMIT
   * (`commitWith`): the counter row is locked for the statement and the
   * commit only. Nothing may be written after it in the transaction.
   */
  async assignAndCommit(
    manager: EntityManager,
    table: InvoicedTable,
    record: { id: number; storeId: number; testMode: boolean },
    now: Date,
    replace?: { placeholder: string; events: string[] },
  ): Promise<string> {
    const { sql, parameters } = this.statement(table, record, now, replace);
    return this.numberOf(
      table,
      record,
      await commitWith<{ invoice_number: string }>(manager, sql, parameters),
    );
  }

  private statement(
    table: InvoicedTable,
    record: { id: number; storeId: number; testMode: boolean },
    now: Date,
    replace?: { placeholder: string; events: string[] },
  ) {
    // A subscription's initial invoice is its order's sale: same number.
    const initialInvoice =
      replace && table === 'orders'
        ? `, initial AS (
         UPDATE subscription_invoices i SET invoice_number = numbered.invoice_number
           FROM numbered, subscriptions s
          WHERE s.order_id = $4 AND i.subscription_id = s.id
            AND i.invoice_number = $5)`
        : '';
    const events = replace?.events.length
      ? `, events AS (
         UPDATE webhook_events e
            SET data = replace(e.data::text, $5, numbered.invoice_number)::json
           FROM numbered WHERE e.id = ANY ($6::bigint[]))`
      : '';
    const parameters: unknown[] = [
      record.storeId,
      record.testMode,
      now.getUTCFullYear(),
      record.id,
    ];
    if (initialInvoice || events) parameters.push(replace!.placeholder);
    if (events) parameters.push(replace!.events.map(Number));
    return {
      sql: `WITH counter AS (
         INSERT INTO store_invoice_counters AS c (store_id, test_mode, year, last_number)
         VALUES ($1, $2, $3, 1)
         ON CONFLICT (store_id, test_mode, year)
           DO UPDATE SET last_number = c.last_number + 1
         RETURNING c.last_number),
       numbered AS (
         UPDATE ${table} r SET invoice_number = ${FORMAT_SQL}
           FROM counter WHERE r.id = $4
         RETURNING r.invoice_number)${initialInvoice}${events}
       SELECT invoice_number FROM numbered`,
      parameters,
      name: `${table}.assign-invoice-number${initialInvoice ? '-initial' : ''}${events ? '-events' : ''}`,
    };
  }

  private numberOf(
    table: InvoicedTable,
    record: { id: number },
    rows: { invoice_number: string }[],
  ): string {
    if (rows.length !== 1)
      throw new Error(`${table} ${record.id}: no row to number`);
    return rows[0].invoice_number;
  }
}
