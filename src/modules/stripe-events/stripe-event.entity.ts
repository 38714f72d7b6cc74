import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/**
 * One event Stripe sent to a store's endpoint (`POST /webhooks/stripe/:id`),
 * stored once per store and event id, then processed by the worker.
 * `processed_at` is set once it was handled (or found to need nothing);
 * `attempts` and `last_error` say how processing went.
 */
@Entity('stripe_events')
export class StripeEvent {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'store_id' })
  storeId: number;

  /** `!livemode`: the mode whose signing secret verified it. */
  @Column({ name: 'test_mode' })
  testMode: boolean;

  /** Stripe's `evt_…`. */
  @Column({ name: 'event_id', type: 'text' })
  eventId: string;

  @Column({ type: 'text' })
  type: string;

  /** The event as Stripe signed it. */
  @Column({ type: 'jsonb' })
  payload: StripeEventPayload;

  @Column({ name: 'received_at', type: 'timestamptz' })
  receivedAt: Date;

  @Column({ name: 'processed_at', type: 'timestamptz', nullable: true })
  processedAt: Date | null;

  @Column({ type: 'integer' })
  attempts: number;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError: string | null;
}

/** What Zest reads of a Stripe event (the rest is kept as sent). */
export interface StripeEventPayload {
  id: string;
  type: string;
  livemode: boolean;
  created: number;
  data: { object: Record<string, unknown> };
}
