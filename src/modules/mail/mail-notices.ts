import { Injectable, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Outbox, OutboxEvent, OutboxListener } from '../webhooks/outbox';
import { MailKind } from './mail-kinds';
import { MailOutbox, NewMail } from './mail-outbox';

/** The fields of a subscription view the notices read. */
interface SubscriptionRecord {
  id: number;
  storeId: number;
  testMode: boolean;
  customerId: number;
  userEmail: string;
  productName: string;
  variantName: string;
  status: string;
  trialEndsAt: Date | null;
  renewsAt: Date;
  endsAt: Date | null;
  updatedAt: Date;
}

/** The fields of a subscription invoice view the notices read. */
interface InvoiceRecord {
  id: number;
  storeId: number;
  testMode: boolean;
  subscriptionId: number;
  customerId: number;
  userEmail: string;
  billingReason: string;
  currency: string;
  total: number;
  refundedAmount: number;
  periodStart: Date;
  periodEnd: Date;
  updatedAt: Date;
  invoiceUrl: string | null;
}

/** The fields of an order the refund notice reads. */
interface OrderRecord {
  id: number;
  storeId: number;
  testMode: boolean;
  customerId: number;
  userEmail: string;
  orderNumber: number;
  currency: string;
  total: number;
  refundedAmount: number;
}

const iso = (date: Date | null | undefined) =>
  date ? new Date(date).toISOString() : null;
const ms = (date: Date) => String(new Date(date).getTime());

// A notice is due at once on the database's clock (the sender compares with
// now()), whatever instant a frozen or simulated billing clock is at.

/**
 * Subscription and refund notices, written from the domain events the
 * billing and order modules record for webhooks (one hook point: every
 * status change of a subscription records its events through
 * `SubscriptionBilling.emit`), in the same transaction. A notice keeps what
 * the cause knew (`data`); the renderer reads the rest when it sends. Each
 * kind's `cause` makes one change mail once: a repeated transition is a
 * new cause (its own `updated_at`), a replayed one is not.
 */
@Injectable()
export class MailNotices implements OutboxListener, OnModuleInit {
  constructor(
    private readonly events: Outbox,
    private readonly outbox: MailOutbox,
  ) {}

  onModuleInit() {
    this.events.listen(this);
  }

  async onOutboxEvent(
    manager: EntityManager,
    event: OutboxEvent<unknown>,
  ): Promise<void> {
    const mail = this.noticeFor(event);
    if (mail) await this.outbox.record(manager, mail);
  }

  private noticeFor(event: OutboxEvent<unknown>): NewMail | null {
    switch (event.name) {
      case 'subscription_created':
      case 'subscription_cancelled':
      case 'subscription_expired':
      case 'subscription_resumed':
      case 'subscription_updated':
        return this.subscriptionNotice(event);
      case 'subscription_payment_success':
      case 'subscription_payment_failed':
        return this.paymentNotice(event);
      case 'order_refunded': {
        const order = event.record as OrderRecord;
        return this.refundNotice(order, 'order', event.detail?.refund_amount, {
          orderNumber: order.orderNumber,
        });
      }
      case 'subscription_payment_refunded': {
        const invoice = event.record as InvoiceRecord;
        return this.refundNotice(
          invoice,
          'invoice',
          event.detail?.refund_amount,
          { subscriptionId: invoice.subscriptionId },
        );
      }
      default:
        return null;
    }
  }

  private subscriptionNotice(event: OutboxEvent<unknown>): NewMail | null {
    const s = event.record as SubscriptionRecord;
    const base = (kind: MailKind, cause?: string): NewMail => ({
      kind,
      storeId: s.storeId,
      customerId: s.customerId,
      testMode: s.testMode,
      recordId: s.id,
      cause,
      to: s.userEmail,
      data: {
        product: s.productName,
        variant: s.variantName,
        status: s.status,
        trialEndsAt: iso(s.trialEndsAt),
        renewsAt: iso(s.renewsAt),
        endsAt: iso(s.endsAt),
      },
      now: new Date(),
    });
    switch (event.name) {
      case 'subscription_created':
        return base('subscription_started');
      case 'subscription_cancelled':
        return base('subscription_cancelled', ms(s.updatedAt));
      case 'subscription_expired':
        return base('subscription_expired');
      case 'subscription_resumed':
        return base('subscription_resumed', ms(s.updatedAt));
      default:
        return event.detail?.changed?.includes('variant_id')
          ? base('subscription_plan_changed', ms(s.updatedAt))
          : null;
    }
  }

  private paymentNotice(event: OutboxEvent<unknown>): NewMail | null {
    const invoice = event.record as InvoiceRecord;
    const failed = event.name === 'subscription_payment_failed';
    // The first payment is on the order's receipt; renewals get their own.
    if (!failed && invoice.billingReason !== 'renewal') return null;
    return {
      kind: failed ? 'subscription_payment_failed' : 'subscription_renewed',
      storeId: invoice.storeId,
      customerId: invoice.customerId,
      testMode: invoice.testMode,
      recordId: invoice.id,
      // An invoice fails once per attempt; each attempt is its own cause.
      cause: failed ? ms(invoice.updatedAt) : undefined,
      to: invoice.userEmail,
      data: {
        subscriptionId: invoice.subscriptionId,
        currency: invoice.currency,
        total: invoice.total,
        periodStart: iso(invoice.periodStart),
        periodEnd: iso(invoice.periodEnd),
        invoiceUrl: invoice.invoiceUrl,
      },
      now: new Date(),
    };
  }

  private refundNotice(
    record: OrderRecord | InvoiceRecord,
    noun: 'order' | 'invoice',
    amount: number | undefined,
    extra: Record<string, unknown>,
  ): NewMail | null {
    if (amount === undefined) return null;
    return {
      kind: 'refund_issued',
      storeId: record.storeId,
      customerId: record.customerId,
      testMode: record.testMode,
      recordId: record.id,
      // The running refunded total tells one refund of the record from the next.
      cause: `${noun}-${record.refundedAmount}`,
      to: record.userEmail,
      data: {
        noun,
        currency: record.currency,
        amount,
        refundedAmount: record.refundedAmount,
        total: record.total,
        full: record.refundedAmount >= record.total,
        ...extra,
      },
      now: new Date(),
    };
  }
}
