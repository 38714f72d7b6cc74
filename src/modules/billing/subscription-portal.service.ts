import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { Transactions } from '../../database/transactions';
import { cardDeclined } from '../payment/payment.errors';
import { BillingPayments } from './billing-payments';
import { SubscriptionView } from './billing-views';
import {
  periodEndOf,
  SubscriptionBilling,
} from './subscription-billing.service';
import { SubscriptionInvoiceRepository } from './subscription-invoice.repository';
import { SubscriptionRepository } from './subscription.repository';
import { transition } from './subscription.state';
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
    private readonly payments: BillingPayments,
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

  /**
   * A new card. A subscription with an unpaid renewal is charged at once
   * (recovering it); otherwise the card is verified with a zero charge. A
   * refused card changes nothing (422).
   */
  updatePaymentMethod(
    id: number,
    cardNumber: string,
  ): Promise<SubscriptionView> {
    return this.transactions.run(async (manager) => {
      const now = this.clock.now();
      const s = await this.subscriptions.lock(manager, id);
      if (!s) throw BillingErrors.subscriptionNotFound();
      if (s.status === 'expired') {
        throw BillingErrors.subscriptionEnded();
      }
      const open =
        s.status === 'past_due' || s.status === 'unpaid'
          ? await this.invoices.openRenewal(manager, s.id)
          : null;
      if (open) {
        const paid = await this.billing.collect(manager, s, open, now, {
          recovering: true,
          attempt: `card-${now.getTime()}`,
          cardNumber,
        });
        if (!paid) {
          throw cardDeclined(
            422,
            `The card was declined (${open.failureReason}).`,
          );
        }
        transition(s, 'active');
        s.failedAttempts = 0;
        s.renewsAt = periodEndOf(s);
      } else {
        const result = await this.payments.charge({
          manager,
          storeId: s.storeId,
          amount: 0,
          currency: s.currency,
          testMode: s.testMode,
          source: { cardNumber },
          description: `Card check for ${s.productName}`,
          reference: `subscription-${s.id}-card-${now.getTime()}`,
        });
        if (!result.ok) {
          throw cardDeclined(422, `The card was declined (${result.reason}).`);
        }
        s.paymentMethod = result.paymentMethod;
        s.cardBrand = result.cardBrand;
        s.cardLastFour = result.cardLastFour;
      }
      await this.billing.save(manager, s, now);
      await this.billing.emit(manager, ['subscription_updated'], s, now);
      const [view] = await this.billing.views(manager, [s], now);
      return view;
    });
  }
}
