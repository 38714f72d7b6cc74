import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { Transactions } from '../../database/transactions';
import { PaymentAttempt } from '../payment/payment-attempt.entity';
import { PaymentMethod } from '../payment/payment-gateway';
import { PaymentGateways } from '../payment/payment-gateways';
import { cardDeclined } from '../payment/payment.errors';
import { SubscriptionView } from './billing-views';
import { InvoiceCollection, SUBSCRIPTION_RECOVERY } from './invoice-collection';
import { SubscriptionBilling } from './subscription-billing.service';
import { SubscriptionInvoiceRepository } from './subscription-invoice.repository';
import { Subscription } from './subscription.entity';
import { SubscriptionRepository } from './subscription.repository';
import { BillingErrors } from './billing.errors';

/**
 * The customer's side of a subscription, reached through its signed links
 * (no API key: the signature is the credential).
 */
@Injectable()
export class SubscriptionPortalService {
  constructor(
    private readonly subscriptions: SubscriptionRepository,
    private readonly invoices: SubscriptionInvoiceRepository,
    private readonly billing: SubscriptionBilling,
    private readonly collection: InvoiceCollection,
    private readonly gateways: PaymentGateways,
    private readonly transactions: Transactions,
    private readonly clock: Clock,
  ) {}

  async find(id: number): Promise<SubscriptionView | null> {
    return this.transactions.run(async (manager) => {
      const s = await this.subscriptions.lock(manager, id);
      if (!s) return null;
      const [view] = await this.billing.views(manager, [s], this.clock.now());
      return view;
    });
  }

  /** The name that heads the subscription's pages ('' when the store is gone). */
  async storeName(s: SubscriptionView): Promise<string> {
    return (await this.subscriptions.storeName(s.storeId)) ?? '';
  }

  /**
   * A new card. A subscription in dunning (past_due or unpaid) has its open
   * renewal invoice charged to it at once, recovering it; otherwise the
   * card is verified with a zero charge and saved. Every processor call is
   * made with no transaction open: the open invoice's charge is recorded
   * first (a pending payment attempt) and settled after the call, as the
   * renewal sweep's are. A refused card changes nothing but the invoice's
   * record of attempts (422).
   */
  async updatePaymentMethod(
    id: number,
    cardNumber: string,
  ): Promise<SubscriptionView> {
    const found = await this.subscriptions.findById(id);
    if (!found) throw BillingErrors.subscriptionNotFound();
    if (found.status === 'expired') throw BillingErrors.subscriptionEnded();
    const gateway = await this.gateways.forStore(found.storeId, found.testMode);
    const method = await gateway.paymentMethodOf(cardNumber);
    const charge = await this.transactions.run(async (manager) => {
      const now = this.clock.now();
      const s = await this.subscriptions.lock(manager, id);
      if (!s) throw BillingErrors.subscriptionNotFound();
      if (s.status === 'expired') throw BillingErrors.subscriptionEnded();
      const open =
        s.status === 'past_due' || s.status === 'unpaid'
          ? await this.invoices.openRenewal(manager, s.id)
          : null;
      if (!open) return null;
      if (await this.collection.pendingCharge(manager, open.id)) {
        throw BillingErrors.invoicePaymentInProgress();
      }
      const attempt = await this.collection.begin(manager, s, open, {
        purpose: SUBSCRIPTION_RECOVERY,
        key: `subscription-invoice-${open.id}-charge-${open.attemptCount + 1}`,
        paymentMethod: method.id,
        now,
      });
      // Nothing to charge: the invoice was settled in this transaction.
      return attempt ?? 'settled';
    });
    if (charge === null) {
      await this.verify(found, method);
    } else if (charge !== 'settled') {
      await this.recover(charge);
    }
    const view = await this.find(id);
    if (!view) throw BillingErrors.subscriptionNotFound();
    return view;
  }

  private async recover(charge: PaymentAttempt) {
    const outcome = await this.collection.complete(charge);
    if (!outcome) return; // Settled by the payment sweeper once the processor answers.
    if (outcome.status !== 'succeeded') {
      throw cardDeclined(422, `The card was declined (${outcome.reason}).`);
    }
  }

  /** No open invoice: a zero charge checks the card, then it is saved. */
  private async verify(found: Subscription, method: PaymentMethod) {
    const id = found.id;
    const gateway = await this.gateways.forStore(found.storeId, found.testMode);
    const now = this.clock.now();
    const result = await gateway.charge({
      reference: `subscription-${id}-card-${now.getTime()}`,
      amount: 0,
      currency: found.currency,
      source: { paymentMethodId: method.id },
      description: 'Card check',
    });
    if (result.status !== 'succeeded') {
      throw cardDeclined(422, `The card was declined (${result.reason}).`);
    }
    await this.transactions.run(async (manager) => {
      const s = await this.subscriptions.lock(manager, id);
      if (!s) throw BillingErrors.subscriptionNotFound();
      s.paymentMethod = result.method.id;
      s.cardBrand = result.method.cardBrand;
      s.cardLastFour = result.method.cardLastFour;
      await this.billing.save(manager, s, now);
      await this.billing.emit(manager, ['subscription_updated'], s, now);
    });
  }
}
