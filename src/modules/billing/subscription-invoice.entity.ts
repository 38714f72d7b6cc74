import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import type { InvoiceLineRecord } from './invoice-lines';
import { dateOnly } from '../../common/date-only';

export type BillingReason = 'initial' | 'renewal' | 'updated';
export type InvoiceStatus = 'pending' | 'paid' | 'void' | 'refunded';

export const INVOICE_STATUS_FORMATTED: Record<InvoiceStatus, string> = {
  pending: 'Pending',
  paid: 'Paid',
  void: 'Void',
  refunded: 'Refunded',
};

@Entity('subscription_invoices')
export class SubscriptionInvoice {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'store_id' })
  storeId: number;

  @Column({ name: 'test_mode' })
  testMode: boolean;

  @Column({ name: 'subscription_id' })
  subscriptionId: number;

  @Column({ name: 'customer_id' })
  customerId: number;

  @Column({ name: 'user_name' })
  userName: string;

  @Column({ name: 'user_email' })
  userEmail: string;

  @Column({ name: 'billing_reason', type: 'text' })
  billingReason: BillingReason;

  @Column({ name: 'card_brand', type: 'text', nullable: true })
  cardBrand: string | null;

  @Column({ name: 'card_last_four', type: 'text', nullable: true })
  cardLastFour: string | null;

  @Column({ type: 'char', length: 3 })
  currency: string;

  /** Numeric text, frozen at invoicing (USD per unit of `currency`). */
  @Column({ name: 'currency_rate', type: 'numeric' })
  currencyRate: string;

  @Column({ type: 'text' })
  status: InvoiceStatus;

  @Column({ name: 'refunded_at', type: 'timestamptz', nullable: true })
  refundedAt: Date | null;

  @Column({ type: 'integer' })
  subtotal: number;

  @Column({ name: 'discount_total', type: 'integer' })
  discountTotal: number;

  @Column({ type: 'integer' })
  tax: number;

  @Column({ name: 'tax_inclusive' })
  taxInclusive: boolean;

  /** The subscription's reverse-charge note, printed on the invoice PDF. */
  @Column({ name: 'tax_note', type: 'text', nullable: true })
  taxNote: string | null;

  /**
   * The store's gap-free invoice number, drawn when the invoice is paid
   * (null before); the initial invoice carries its order's.
   */
  @Column({ name: 'invoice_number', type: 'text', nullable: true })
  invoiceNumber: string | null;

  /** Frozen at invoicing, as on the subscription. */
  @Column({ name: 'tax_name', type: 'text', nullable: true })
  taxName: string | null;

  /** Percent, as PostgreSQL numeric text (e.g. "20.0000"). */
  @Column({ name: 'tax_rate', type: 'numeric' })
  taxRate: string;

  /**
   * A renewal of a Stripe Tax store: `stripe_tax:taxcalc_…`, the calculation
   * that priced it (its tax transaction is recorded from it); else null.
   * Never rendered.
   */
  @Column({ name: 'tax_rate_source', type: 'text', nullable: true })
  taxRateSource: string | null;

  /** What the subtotal is made of; the lines sum to it. */
  @Column({ type: 'jsonb' })
  lines: InvoiceLineRecord[];

  @Column({ type: 'integer' })
  total: number;

  @Column({ name: 'refunded_amount', type: 'integer' })
  refundedAmount: number;

  @Column({ name: 'subtotal_usd', type: 'integer' })
  subtotalUsd: number;

  @Column({ name: 'discount_total_usd', type: 'integer' })
  discountTotalUsd: number;

  @Column({ name: 'tax_usd', type: 'integer' })
  taxUsd: number;

  @Column({ name: 'total_usd', type: 'integer' })
  totalUsd: number;

  @Column({ name: 'refunded_amount_usd', type: 'integer' })
  refundedAmountUsd: number;

  @Column({ name: 'period_start', type: 'timestamptz' })
  periodStart: Date;

  @Column({ name: 'period_end', type: 'timestamptz' })
  periodEnd: Date;

  /** The gateway's charge reference; never rendered. */
  @Column({ name: 'payment_reference', type: 'text', nullable: true })
  paymentReference: string | null;

  @Column({ name: 'failure_reason', type: 'text', nullable: true })
  failureReason: string | null;

  /** Charges made for it: the renewal, then each dunning retry or portal recovery. */
  @Column({ name: 'attempt_count', type: 'integer', default: 0 })
  attemptCount: number;

  /** When the renewal sweep charges it again (dunning); null otherwise. */
  @Column({ name: 'next_retry_at', type: 'timestamptz', nullable: true })
  nextRetryAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  /** The day `currency_rate` is for; null for USD and CURRENCY_RATES (see orders). */
  @Column({
    name: 'currency_rate_date',
    type: 'date',
    nullable: true,
    transformer: dateOnly,
  })
  currencyRateDate: string | null;
}
