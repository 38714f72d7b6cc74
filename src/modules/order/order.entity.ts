import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { dateOnly } from '../../common/date-only';
import type { OrderStatus } from './order-status';

/**
 * A chargeback on the order's payment, as the processor reported it
 * (Stripe's `charge.dispute.*` events): `amount` in the order's minor units.
 */
export interface OrderDispute {
  /** The processor's id of the dispute (`dp_…`); not rendered. */
  id: string;
  /** Stripe's dispute status: `needs_response`, `under_review`, `won`, `lost` … */
  status: string;
  reason: string;
  amount: number;
  /** ISO 8601, when the dispute was opened. */
  createdAt: string;
}

/** Numeric columns arrive from pg as strings; money rates stay exact in the database. */
const decimal = {
  to: (value: number) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};

@Entity('orders')
export class Order {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'store_id' })
  storeId: number;

  @Column({ name: 'customer_id' })
  customerId: number;

  @Column({ type: 'uuid' })
  identifier: string;

  @Column({ name: 'order_number' })
  orderNumber: number;

  @Column({ name: 'test_mode' })
  testMode: boolean;

  @Column({ name: 'user_name' })
  userName: string;

  @Column({ name: 'user_email' })
  userEmail: string;

  @Column({ type: 'char', length: 3 })
  currency: string;

  /** USD per unit of `currency`, frozen at purchase. */
  @Column({
    name: 'currency_rate',
    type: 'numeric',
    transformer: decimal,
  })
  currencyRate: number;

  @Column({ name: 'tax_name', type: 'text', nullable: true })
  taxName: string | null;

  /** Percent. */
  @Column({ name: 'tax_rate', type: 'numeric', transformer: decimal })
  taxRate: number;

  @Column({ name: 'tax_inclusive' })
  taxInclusive: boolean;

  @Column({ type: 'text' })
  status: OrderStatus;

  @Column({ name: 'refunded_at', type: 'timestamptz', nullable: true })
  refundedAt: Date | null;

  @Column()
  subtotal: number;

  @Column({ name: 'discount_total' })
  discountTotal: number;

  @Column()
  tax: number;

  @Column({ name: 'setup_fee' })
  setupFee: number;

  @Column()
  total: number;

  @Column({ name: 'refunded_amount' })
  refundedAmount: number;

  @Column({ name: 'subtotal_usd' })
  subtotalUsd: number;

  @Column({ name: 'discount_total_usd' })
  discountTotalUsd: number;

  @Column({ name: 'tax_usd' })
  taxUsd: number;

  @Column({ name: 'setup_fee_usd' })
  setupFeeUsd: number;

  @Column({ name: 'total_usd' })
  totalUsd: number;

  @Column({ name: 'refunded_amount_usd' })
  refundedAmountUsd: number;

  @Column({ name: 'billing_country', type: 'char', length: 2, nullable: true })
  billingCountry: string | null;

  @Column({ name: 'billing_zip', type: 'text', nullable: true })
  billingZip: string | null;

  @Column({ name: 'tax_number', type: 'text', nullable: true })
  taxNumber: string | null;

  /** The buyer's US state or Canadian province, from the checkout or the postcode. */
  @Column({ name: 'billing_region', type: 'text', nullable: true })
  billingRegion: string | null;

  /** The offline check of `tax_number` (TaxNumberCheck); null without one. */
  @Column({ name: 'tax_number_check', type: 'text', nullable: true })
  taxNumberCheck: 'valid' | 'invalid' | 'valid_offline' | 'not_checked' | null;

  /** The rate table's version, `TAX_RATES`, `reverse_charge` or `not_registered`. */
  @Column({ name: 'tax_rate_source', type: 'text', nullable: true })
  taxRateSource: string | null;

  /** The reverse-charge wording shown on the receipt and invoice. */
  @Column({ name: 'tax_note', type: 'text', nullable: true })
  taxNote: string | null;

  /** The store's gap-free invoice number (`2026-000042`), drawn when the order is paid; null before. */
  @Column({ name: 'invoice_number', type: 'text', nullable: true })
  invoiceNumber: string | null;

  @Column({ name: 'checkout_id', type: 'uuid', nullable: true })
  checkoutId: string | null;

  /** `checkout_data.custom`, passed on to webhooks as `meta.custom_data`. */
  @Column({ name: 'custom_data', type: 'jsonb', nullable: true })
  customData: Record<string, unknown> | null;

  /** The gateway's id of the charge, needed to refund it. */
  @Column({ name: 'payment_reference', type: 'text', nullable: true })
  paymentReference: string | null;

  @Column({ name: 'failure_reason', type: 'text', nullable: true })
  failureReason: string | null;

  /** The latest dispute of the order's payment; null when never disputed. */
  @Column({ type: 'jsonb', nullable: true })
  dispute: OrderDispute | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  /**
   * The day `currency_rate` is for (YYYY-MM-DD); null for USD, for a rate
   * set by CURRENCY_RATES and for orders written before rates had dates.
   */
  @Column({
    name: 'currency_rate_date',
    type: 'date',
    nullable: true,
    transformer: dateOnly,
  })
  currencyRateDate: string | null;
}
