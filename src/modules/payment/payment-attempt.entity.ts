import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { PaymentMethod } from './payment-gateway';

/**
 * `charge`: a saved payment method charged by Zest; `refund`; `intent`: a
 * payment the buyer confirms in the browser (Stripe's Payment Element), its
 * PaymentIntent's or SetupIntent's id in `paymentId` once created.
 */
export type PaymentAttemptKind = 'charge' | 'refund' | 'intent';
export type PaymentAttemptStatus =
  'pending' | 'succeeded' | 'declined' | 'failed';

/** What the processor answered, stored with the settled attempt. */
export type PaymentOutcome =
  | { status: 'succeeded'; paymentId: string; method: PaymentMethod | null }
  | { status: 'declined'; reason: string; method: PaymentMethod | null }
  /** The processor refused the request itself (a 4xx of its own): nothing moved. */
  | { status: 'failed'; reason: string; code: string | null; http: number };

/**
 * One call to the payment processor: stored (`pending`) before the call,
 * settled after it. `idempotency_key` is what the processor is sent, so
 * replaying a pending attempt can never charge or refund twice.
 */
@Entity('payment_attempts')
export class PaymentAttempt {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'idempotency_key', type: 'text' })
  idempotencyKey: string;

  @Column({ name: 'store_id' })
  storeId: number;

  @Column({ name: 'test_mode' })
  testMode: boolean;

  @Column({ type: 'text' })
  kind: PaymentAttemptKind;

  /** Names the use case that settles it (see `PaymentAttempts.register`). */
  @Column({ type: 'text' })
  purpose: string;

  /** The record the purpose settles: an order, a subscription invoice. */
  @Column({ name: 'subject_id' })
  subjectId: number;

  /** Minor units of `currency`. */
  @Column({ type: 'integer' })
  amount: number;

  @Column({ type: 'char', length: 3 })
  currency: string;

  /** A charge's source: a reusable payment method, never a card number. */
  @Column({ name: 'payment_method', type: 'text', nullable: true })
  paymentMethod: string | null;

  /** A refund's charge; an intent attempt's PaymentIntent or SetupIntent. */
  @Column({ name: 'payment_id', type: 'text', nullable: true })
  paymentId: string | null;

  @Column({ type: 'text' })
  description: string;

  @Column({ type: 'text' })
  status: PaymentAttemptStatus;

  @Column({ type: 'jsonb', nullable: true })
  outcome: PaymentOutcome | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
