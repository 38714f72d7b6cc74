import { Injectable, Logger } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { StripeEventHandlers } from './stripe-event-handlers';
import { StripeEventRepository } from './stripe-event.repository';

/** How long a stored event may wait for its job before the sweep processes it. */
export const STALE_STRIPE_EVENT_MS = 60_000;
/** Tries before the sweep leaves an event alone (its `last_error` says why). */
export const MAX_STRIPE_EVENT_ATTEMPTS = 10;
const SWEEP_BATCH = 100;
/**
 * How long a processed event is kept, so that a redelivery is still known
 * as one: Stripe retries an event for up to 3 days.
 */
export const STRIPE_EVENT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
const MAX_ERROR_LENGTH = 1000;

/**
 * Processes stored Stripe events in the worker: each by its handler, then
 * marked processed. A refusal (a 4xx of Zest's or Stripe's) is final and
 * kept in `last_error`; anything else (the database, Stripe away) leaves
 * the event unprocessed for the job's retries and, past those, the sweep.
 */
@Injectable()
export class StripeEventProcessing {
  private readonly logger = new Logger(StripeEventProcessing.name);

  constructor(
    private readonly events: StripeEventRepository,
    private readonly handlers: StripeEventHandlers,
    private readonly clock: Clock,
  ) {}

  /** Processes a stored event unless it is processed already. */
  async process(id: string): Promise<void> {
    const event = await this.events.startAttempt(id);
    if (!event) return;
    try {
      await this.handlers.handle(event);
    } catch (error) {
      const message = errorText(error);
      if (error instanceof AppError && error.status < 500) {
        this.logger.warn(
          `Stripe event ${event.eventId} (${event.type}) of store ${event.storeId} refused: ${message}`,
        );
        await this.events.markProcessed(id, this.clock.now(), message);
        return;
      }
      await this.events.recordFailure(id, message);
      throw error;
    }
    await this.events.markProcessed(id, this.clock.now(), null);
  }

  /**
   * Processes the events still unprocessed `minAgeMs` after receipt (their
   * job lost, or failed for good), and forgets those processed more than
   * STRIPE_EVENT_RETENTION_MS ago. Returns how many were processed.
   */
  async sweep(minAgeMs = STALE_STRIPE_EVENT_MS): Promise<number> {
    const now = this.clock.now().getTime();
    await this.events.deleteProcessedBefore(
      new Date(now - STRIPE_EVENT_RETENTION_MS),
    );
    const before = new Date(now - minAgeMs);
    const ids = await this.events.findUnprocessed(
      before,
      MAX_STRIPE_EVENT_ATTEMPTS,
      SWEEP_BATCH,
    );
    let processed = 0;
    for (const id of ids) {
      try {
        await this.process(id);
        processed++;
      } catch (error) {
        this.logger.warn(
          `Stripe event row ${id} is still unprocessed: ${errorText(error)}`,
        );
      }
    }
    return processed;
  }
}

function errorText(error: unknown): string {
  const text =
    error instanceof AppError
      ? `${error.codes.join(', ')}: ${error.message}`
      : error instanceof Error
        ? error.message
        : String(error);
  return text.slice(0, MAX_ERROR_LENGTH);
}
