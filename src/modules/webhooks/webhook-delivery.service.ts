import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import { Batcher } from '../../common/batcher';
import { Principal } from '../../common/principal';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { MetricsService } from '../../metrics/metrics.service';
import { retryDelayMs } from './retry-schedule';
import { WebhookDeliveryQueue } from './webhook-delivery.queue';
import {
  AttemptOutcome,
  ClaimedDelivery,
  WebhookAttemptRepository,
} from './webhook-attempt.repository';
import { WebhookDeliveryRepository } from './webhook-delivery.repository';
import { WebhookRepository } from './webhook.repository';
import {
  lemonSqueezySignature,
  SecretBox,
  standardWebhookSignature,
} from './webhook-secret';
import { WebhookSender } from './webhook-sender';

/** The body a receiver gets: no `jsonapi`, no top-level links (reference section 8). */
export function deliveryBody(delivery: ClaimedDelivery): string {
  const meta: Record<string, unknown> = {
    event_name: delivery.eventName,
    test_mode: delivery.testMode,
    webhook_id: String(delivery.webhookId),
  };
  if (delivery.customData) meta.custom_data = delivery.customData;
  return JSON.stringify({ meta, data: delivery.data });
}

/** The signed headers of one attempt: Lemon Squeezy's and Standard Webhooks'. */
function signedHeaders(
  secret: string,
  eventName: string,
  messageId: string,
  body: string,
): Record<string, string> {
  const timestamp = Math.floor(Date.now() / 1000);
  return {
    'Content-Type': 'application/json',
    'X-Event-Name': eventName,
    'X-Signature': lemonSqueezySignature(secret, body),
    'webhook-id': messageId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standardWebhookSignature(
      secret,
      messageId,
      timestamp,
      body,
    ),
  };
}

/** The event name of a test delivery (`cli webhooks:test`); never a domain event. */
export const TEST_EVENT_NAME = 'ping';

export interface TestDeliveryResult {
  /** The receiver's status, or null when none arrived. */
  responseCode: number | null;
  /** Why no 2xx arrived, or null. */
  error: string | null;
  durationMs: number;
}

/**
 * The scheduled retry delay, pushed back to a receiver's Retry-After (429,
 * 503) when that is later; null (no retry left) stays null.
 */
function laterOf(scheduled: number | null, retryAfterMs: number | null) {
  if (scheduled === null || retryAfterMs === null) return scheduled;
  return Math.max(scheduled, retryAfterMs);
}

/** Sends delivery attempts and keeps their state in PostgreSQL. */
@Injectable()
export class WebhookDeliveryService implements OnModuleDestroy {
  private readonly logger = new Logger(WebhookDeliveryService.name);
  private readonly secrets: SecretBox;
  private sender: WebhookSender;
  // Concurrent attempts share their claim and record statements.
  private readonly claims: Batcher<
    { id: string; attempt: number },
    ClaimedDelivery | null
  >;
  private readonly records: Batcher<
    { id: string; outcome: AttemptOutcome },
    boolean
  >;

  constructor(
    private readonly deliveries: WebhookDeliveryRepository,
    private readonly webhooks: WebhookRepository,
    private readonly attempts: WebhookAttemptRepository,
    private readonly queue: WebhookDeliveryQueue,
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.secrets = new SecretBox(config.appKey);
    this.sender = new WebhookSender({
      timeoutMs: config.webhooks.timeoutMs,
      allowPrivate: config.webhooks.allowPrivate,
    });
    // The claim outlives the request's deadline, so a live sender is never overtaken.
    const claimMs = config.webhooks.timeoutMs + 10_000;
    this.claims = new Batcher((requests) =>
      this.attempts.claimMany(requests, claimMs),
    );
    this.records = new Batcher((finished) =>
      this.attempts.finishMany(finished),
    );
  }

  /** Tests swap in a sender with a fake resolver. */
  useSender(sender: WebhookSender) {
    this.sender.close();
    this.sender = sender;
  }

  onModuleDestroy() {
    this.sender.close();
  }

  /**
   * Runs attempt `attempt` of a delivery if it is still due, records it, and
   * enqueues the next attempt after a failure. Idempotent: a duplicate job
   * finds the attempt claimed or done and does nothing.
   */
  async attempt(deliveryId: string, attempt: number): Promise<void> {
    const delivery = await this.claims.call({ id: deliveryId, attempt });
    if (!delivery) return;
    const body = deliveryBody(delivery);
    const secret = this.secrets.open(delivery.secretEncrypted);
    const startedAt = new Date();
    const result = await this.sender.send({
      url: delivery.url,
      body,
      requireHttps: !delivery.testMode,
      headers: signedHeaders(
        secret,
        delivery.eventName,
        `msg_${delivery.id}`,
        body,
      ),
    });
    const finishedAt = new Date();
    const succeeded = result.error === null;
    const delay =
      succeeded || result.responseCode === 410
        ? null // 410 Gone: the receiver says it will never want this again.
        : laterOf(
            retryDelayMs(
              this.config.webhooks.retryDelaysMs,
              attempt - delivery.scheduleStart,
            ),
            result.retryAfterMs,
          );
    const status = succeeded
      ? 'succeeded'
      : delay === null
        ? 'failed'
        : 'pending';
    const nextAttemptAt =
      delay === null ? null : new Date(finishedAt.getTime() + delay);
    const recorded = await this.records.call({
      id: delivery.id,
      outcome: {
        attempt,
        status,
        responseCode: result.responseCode,
        error: result.error,
        durationMs: result.durationMs,
        startedAt,
        finishedAt,
        nextAttemptAt,
      },
    });
    if (recorded) {
      this.metrics.webhookDeliveries.inc({
        outcome: status === 'pending' ? 'retrying' : status,
      });
    }
    this.logger.log(
      {
        deliveryId: delivery.id,
        webhookId: delivery.webhookId,
        event: delivery.eventName,
        attempt,
        responseCode: result.responseCode,
        durationMs: result.durationMs,
        status,
      },
      result.error
        ? `Webhook delivery attempt failed: ${result.error}`
        : 'Webhook delivered',
    );
    if (!recorded || delay === null) return;
    try {
      await this.queue.add(delivery.id, attempt + 1, delay);
    } catch (error) {
      // The sweeper enqueues due deliveries that are missing from the queue.
      this.logger.warn(
        { err: error, deliveryId: delivery.id },
        'Could not enqueue the next webhook attempt; the sweeper will',
      );
    }
  }

  /**
   * Sends one signed `ping` to a webhook now, as a delivery is sent (same
   * headers, signatures, address rules and timeout), and reports what the
   * receiver answered. Nothing is recorded and nothing is retried.
   */
  async sendTest(
    principal: Principal,
    webhookId: number,
  ): Promise<TestDeliveryResult> {
    const [webhook] = await this.webhooks.findVisible(principal, [webhookId]);
    const sealed = webhook
      ? await this.webhooks.sealedSecret(principal, webhook.id)
      : null;
    if (!webhook || sealed === null) throw AppError.notFound();
    const body = JSON.stringify({
      meta: {
        event_name: TEST_EVENT_NAME,
        test_mode: webhook.testMode,
        webhook_id: String(webhook.id),
      },
      data: null,
    });
    const result = await this.sender.send({
      url: webhook.url,
      body,
      requireHttps: !webhook.testMode,
      headers: signedHeaders(
        this.secrets.open(sealed),
        TEST_EVENT_NAME,
        `msg_test_${randomUUID()}`,
        body,
      ),
    });
    return {
      responseCode: result.responseCode,
      error: result.error,
      durationMs: result.durationMs,
    };
  }

  /** POST /v1/webhook-deliveries/:id/resend: a new attempt now, with a fresh retry schedule. */
  async resend(principal: Principal, id: string): Promise<void> {
    const resent = /^\d{1,18}$/.test(id)
      ? await this.deliveries.resend(principal, id)
      : null;
    if (!resent) throw AppError.notFound();
    try {
      await this.queue.ensure(id, resent.attempt, new Date());
    } catch (error) {
      this.logger.warn(
        { err: error, deliveryId: id },
        'Could not enqueue a resent webhook delivery; the sweeper will',
      );
    }
  }
}
