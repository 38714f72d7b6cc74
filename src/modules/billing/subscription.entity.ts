import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import type { IntervalUnit } from './billing-period';
import type { SubscriptionStatus } from './subscription.state';

export type PauseMode = 'void' | 'free';

@Entity('subscriptions')
export class Subscription {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'store_id' })
  storeId: number;

  @Column({ name: 'test_mode' })
  testMode: boolean;

  @Column({ name: 'customer_id' })
  customerId: number;

  @Column({ name: 'order_id' })
  orderId: number;

  @Column({ name: 'order_item_id' })
  orderItemId: number;

  @Column({ name: 'product_id' })
  productId: number;

  @Column({ name: 'variant_id' })
  variantId: number;

  @Column({ name: 'product_name' })
  productName: string;

  @Column({ name: 'variant_name' })
  variantName: string;

  @Column({ name: 'user_name' })
  userName: string;

  @Column({ name: 'user_email' })
  userEmail: string;

  @Column({ type: 'text' })
  status: SubscriptionStatus;

  @Column({ name: 'card_brand', type: 'text', nullable: true })
  cardBrand: string | null;

  @Column({ name: 'card_last_four', type: 'text', nullable: true })
  cardLastFour: string | null;

  /** The gateway's reusable payment-method reference; never rendered or logged. */
  @Column({ name: 'payment_method', type: 'text', nullable: true })
  paymentMethod: string | null;

  @Column({ name: 'pause_mode', type: 'text', nullable: true })
  pauseMode: PauseMode | null;

  @Column({ name: 'pause_resumes_at', type: 'timestamptz', nullable: true })
  pauseResumesAt: Date | null;

  @Column()
  cancelled: boolean;

  @Column({ name: 'trial_ends_at', type: 'timestamptz', nullable: true })
  trialEndsAt: Date | null;

  @Column({ name: 'billing_anchor', type: 'smallint' })
  billingAnchor: number;

  @Column({ name: 'interval_unit', type: 'text' })
  intervalUnit: IntervalUnit;

  @Column({ name: 'interval_quantity', type: 'integer' })
  intervalQuantity: number;

  @Column({ name: 'current_period_start', type: 'timestamptz' })
  currentPeriodStart: Date;

  @Column({ name: 'renews_at', type: 'timestamptz' })
  renewsAt: Date;

  @Column({ name: 'ends_at', type: 'timestamptz', nullable: true })
  endsAt: Date | null;

  @Column({ name: 'next_action_at', type: 'timestamptz', nullable: true })
  nextActionAt: Date | null;

  @Column({ name: 'failed_attempts', type: 'integer' })
  failedAttempts: number;

  /** Signed cents: owed (+) or credited (−) by prorations, settled at the next renewal. */
  @Column({ name: 'pending_proration', type: 'integer' })
  pendingProration: number;

  @Column({ type: 'char', length: 3 })
  currency: string;

  @Column({ name: 'tax_name', type: 'text', nullable: true })
  taxName: string | null;

  /** Percent, as PostgreSQL numeric text (e.g. "20.0000"). */
  @Column({ name: 'tax_rate', type: 'numeric' })
  taxRate: string;

  @Column({ name: 'tax_inclusive' })
  taxInclusive: boolean;

  /** The order's reverse-charge note, repeated on every renewal invoice. */
  @Column({ name: 'tax_note', type: 'text', nullable: true })
  taxNote: string | null;

  /** A repeating or forever discount of the purchase, for renewals. */
  @Column({ name: 'discount_amount', type: 'integer', nullable: true })
  discountAmount: number | null;

  @Column({ name: 'discount_amount_type', type: 'text', nullable: true })
  discountAmountType: 'percent' | 'fixed' | null;

  /** Renewals starting before this instant are discounted; null with an amount: forever. */
  @Column({ name: 'discount_ends_at', type: 'timestamptz', nullable: true })
  discountEndsAt: Date | null;

  @Column({ name: 'custom_data', type: 'jsonb', nullable: true })
  customData: Record<string, unknown> | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
