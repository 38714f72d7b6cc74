import { Injectable } from '@nestjs/common';
import Stripe from 'stripe';
import { Clock } from '../../common/clock';
import { StripeCredentialsService } from '../payment/stripe-credentials.service';
import { StripeEventPayload } from './stripe-event.entity';
import { StripeEventRepository } from './stripe-event.repository';
import { StripeEventErrors } from './stripe-events.errors';
import { StripeEventsQueue } from './stripe-events.queue';

/**
 * Receives Stripe's events for a store: verifies `Stripe-Signature` over
 * the raw body with the store's signing secret of the event's mode
 * (`livemode`), stores the event once per store and event id, and hands
 * it to the worker after the insert has committed. Nothing is written for
 * a refused request; a replay is acknowledged and changes nothing.
 */
@Injectable()
export class StripeInbox {
  constructor(
    private readonly credentials: StripeCredentialsService,
    private readonly events: StripeEventRepository,
    private readonly queue: StripeEventsQueue,
    private readonly clock: Clock,
  ) {}

  async receive(
    storeId: number,
    body: unknown,
    signature: string | string[] | undefined,
  ): Promise<{ duplicate: boolean }> {
    if (!Buffer.isBuffer(body)) throw StripeEventErrors.eventMalformed();
    const livemode = livemodeOf(body);
    const testMode = !livemode;
    const keys = await this.credentials.keysOf(storeId, testMode);
    if (!keys) throw StripeEventErrors.endpointUnknown();
    if (typeof signature !== 'string' || signature === '')
      throw StripeEventErrors.signatureInvalid();
    let event: StripeEventPayload;
    try {
      event = Stripe.webhooks.constructEvent(
        body,
        signature,
        keys.webhookSecret,
      ) as unknown as StripeEventPayload;
    } catch {
      throw StripeEventErrors.signatureInvalid();
    }
    if (
      typeof event.id !== 'string' ||
      typeof event.type !== 'string' ||
      event.livemode !== livemode ||
      typeof event.data?.object !== 'object' ||
      event.data.object === null
    )
      throw StripeEventErrors.eventMalformed();
    const id = await this.events.insertIfAbsent({
      storeId,
      testMode,
      eventId: event.id,
      type: event.type,
      payload: event,
      receivedAt: this.clock.now(),
    });
    if (id !== null) await this.queue.enqueue(id);
    return { duplicate: id === null };
  }
}

/** The event's `livemode`, read before the signature is checked (it picks the secret). */
function livemodeOf(body: Buffer): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw StripeEventErrors.eventMalformed();
  }
  const livemode = (parsed as { livemode?: unknown } | null)?.livemode;
  if (typeof livemode !== 'boolean') throw StripeEventErrors.eventMalformed();
  return livemode;
}
