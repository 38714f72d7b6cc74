import { Injectable } from '@nestjs/common';
import { formatTimestamp } from '../../common/timestamps';
import { SubscriptionInvoiceService } from '../billing/subscription-invoice.service';
import { OrderDisputes } from '../order/order-disputes';
import { OrderService } from '../order/order.service';
import { PaymentAttempts } from '../payment/payment-attempts';
import { PaymentGateways } from '../payment/payment-gateways';
import { RefundReversals } from '../payment/refund-reversals';
import { fromStripeAmount } from '../payment/stripe-amounts';
import { StripeEvent } from './stripe-event.entity';

type StripeObject = Record<string, unknown>;

/** The event types Zest acts on; any other is recorded and marked processed. */
export const HANDLED_STRIPE_EVENTS = [
  'payment_intent.succeeded',
  'payment_intent.payment_failed',
  'setup_intent.succeeded',
  'charge.refunded',
  'charge.refund.updated',
  'charge.dispute.created',
  'charge.dispute.closed',
] as const;

/**
 * What each Stripe event does in Zest. Every handler is idempotent (a
 * second run, or two at once, changes nothing more) and opens its own
 * transactions; Stripe is called only outside them. An event about a
 * payment Zest did not take is ignored.
 */
@Injectable()
export class StripeEventHandlers {
  constructor(
    private readonly orders: OrderService,
    private readonly disputes: OrderDisputes,
    private readonly invoices: SubscriptionInvoiceService,
    private readonly attempts: PaymentAttempts,
    private readonly gateways: PaymentGateways,
    private readonly reversals: RefundReversals,
  ) {}

  async handle(event: StripeEvent): Promise<void> {
    const object = event.payload.data.object;
    switch (event.type) {
      case 'payment_intent.succeeded':
      case 'payment_intent.payment_failed':
      case 'setup_intent.succeeded': {
        const intentId = idOf(object.id);
        if (intentId)
          await this.attempts.settleIntent(
            event.storeId,
            event.testMode,
            intentId,
          );
        return;
      }
      case 'charge.refunded':
        return this.chargeRefunded(event, object);
      case 'charge.refund.updated':
        return this.refundUpdated(event, object);
      case 'charge.dispute.created':
      case 'charge.dispute.closed':
        return this.dispute(event, object);
      default:
        return;
    }
  }

  /**
   * A refund of a payment, made through the API (an echo of Zest's own) or
   * in Stripe's dashboard. Stripe's list of the payment's refunds (read
   * now, so a late or repeated event sees the latest) is matched against
   * the refunds Zest recorded; only the ones it does not know change the
   * order or invoice, as a refund through the API would.
   */
  private async chargeRefunded(
    event: StripeEvent,
    charge: StripeObject,
  ): Promise<void> {
    const paymentId = idOf(charge.payment_intent);
    if (!paymentId) return;
    const { storeId, testMode } = event;
    const order = await this.orders.findByPaymentReference(
      storeId,
      testMode,
      paymentId,
    );
    const invoiceId = order
      ? null
      : await this.invoices.findIdByPaymentReference(
          storeId,
          testMode,
          paymentId,
        );
    if (!order && invoiceId === null) return;
    const stripe = await this.gateways.stripeOf(storeId, testMode);
    // Disconnected since the event came: kept for a retry once reconnected.
    if (!stripe)
      throw new Error(
        'The store has no Stripe account connected for this mode to read the refunds from',
      );
    const refunds = await stripe.refundsOf(paymentId);
    if (order) await this.orders.recordProcessorRefunds(order.id, refunds);
    else await this.invoices.recordProcessorRefunds(invoiceId!, refunds);
  }

  /**
   * A refund that failed or was canceled after Stripe accepted it: the
   * order or invoice gets the amount back (RefundReversals); any other
   * update (pending → succeeded) changes nothing.
   */
  private async refundUpdated(
    event: StripeEvent,
    refund: StripeObject,
  ): Promise<void> {
    const refundId = idOf(refund.id);
    const status = text(refund.status);
    if (!refundId || (status !== 'failed' && status !== 'canceled')) return;
    const why = text(refund.failure_reason);
    await this.reversals.failed(
      event,
      refundId,
      status === 'canceled'
        ? 'The refund was canceled at Stripe.'
        : `The refund failed at Stripe${why ? ` (${why})` : ''}.`,
    );
  }

  /** A dispute opened or decided on an order's payment. */
  private async dispute(
    event: StripeEvent,
    dispute: StripeObject,
  ): Promise<void> {
    const paymentId = idOf(dispute.payment_intent);
    const disputeId = idOf(dispute.id);
    if (!paymentId || !disputeId) return;
    const order = await this.orders.findByPaymentReference(
      event.storeId,
      event.testMode,
      paymentId,
    );
    if (!order) return;
    const currency =
      typeof dispute.currency === 'string' ? dispute.currency : order.currency;
    const report = {
      id: disputeId,
      status: text(dispute.status),
      reason: text(dispute.reason),
      amount: fromStripeAmount(Number(dispute.amount), currency),
      createdAt: formatTimestamp(
        new Date(Number(dispute.created ?? event.payload.created) * 1000),
      ),
    };
    if (event.type === 'charge.dispute.created')
      await this.disputes.opened(order.id, report);
    else await this.disputes.closed(order.id, report);
  }
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** An id, whether Stripe sent it as is or expanded into its object. */
function idOf(value: unknown): string | null {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'object' && value !== null) {
    const id = (value as { id?: unknown }).id;
    if (typeof id === 'string' && id !== '') return id;
  }
  return null;
}
