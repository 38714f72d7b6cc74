import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { PaymentAttempt } from '../payment/payment-attempt.entity';
import { amountLine } from './invoice-lines';
import {
  InvoiceCollection,
  SUBSCRIPTION_PRORATION,
} from './invoice-collection';
import { prorationMode } from './proration';
import { SubscriptionBilling } from './subscription-billing.service';
import { Subscription } from './subscription.entity';

export interface ProrationFlags {
  invoiceImmediately?: boolean;
  disableProrations?: boolean;
}

/** A subscription change's prorated amount: now, at the next renewal, or not at all. */
@Injectable()
export class ProrationCharges {
  constructor(
    private readonly billing: SubscriptionBilling,
    private readonly collection: InvoiceCollection,
  ) {}

  /**
   * Spec 4.7 rules 2–3 for a prorated amount: nothing (disable_prorations),
   * an `updated` invoice charged now (invoice_immediately), or a balance
   * settled by the next renewal. A credit is never paid out: it waits for
   * the next renewal invoice. The immediate charge is returned, to make
   * once the caller's transaction commits: refused, its invoice is void
   * and the amount moves to the next renewal invoice.
   */
  async settle(
    manager: EntityManager,
    s: Subscription,
    net: number,
    flags: ProrationFlags,
    now: Date,
    /** What changed, for the line of an immediate invoice. */
    description: string,
  ): Promise<PaymentAttempt | null> {
    const mode = prorationMode(flags);
    if (mode === 'none' || net === 0) return null;
    if (mode === 'next_renewal' || net < 0) {
      s.pendingProration += net;
      return null;
    }
    const invoice = await this.billing.createInvoice(manager, s, {
      reason: 'updated',
      lines: [amountLine(description, net)],
      periodStart: now,
      periodEnd: s.renewsAt,
      now,
    });
    return this.collection.begin(manager, s, invoice, {
      purpose: SUBSCRIPTION_PRORATION,
      key: `subscription-invoice-${invoice.id}-updated`,
      paymentMethod: s.paymentMethod,
      now,
    });
  }
}
