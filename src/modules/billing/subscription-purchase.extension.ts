import { Injectable, OnModuleInit } from '@nestjs/common';
import { isUsageBased } from '../catalog/price-rules';
import { trialOf } from '../catalog/signup-charge';
import {
  PurchaseContext,
  PurchaseExtension,
  PurchaseExtensions,
} from '../checkout/purchase-extension';
import { periodEnd, trialEnd } from './billing-period';
import { initialLines } from './invoice-lines';
import { invoiceAmounts } from './invoice-totals';
import {
  priceTerms,
  SubscriptionBilling,
} from './subscription-billing.service';
import { SubscriptionInvoiceRepository } from './subscription-invoice.repository';
import { SubscriptionRepository } from './subscription.repository';

/**
 * A paid purchase of a subscription price: the subscription, its item and
 * the initial invoice (what the order charged), with `subscription_created`
 * and `subscription_payment_success`, all in the purchase's transaction.
 */
@Injectable()
export class SubscriptionPurchaseExtension
  implements PurchaseExtension, OnModuleInit
{
  readonly name = 'billing';

  constructor(
    private readonly extensions: PurchaseExtensions,
    private readonly subscriptions: SubscriptionRepository,
    private readonly invoices: SubscriptionInvoiceRepository,
    private readonly billing: SubscriptionBilling,
  ) {}

  onModuleInit() {
    this.extensions.register(this);
  }

  async onPurchase(context: PurchaseContext): Promise<void> {
    const { manager, now, order } = context;
    for (const purchased of context.items) {
      const { price } = purchased;
      if (price.category !== 'subscription') continue;
      if (!price.renewalIntervalUnit || !price.renewalIntervalQuantity) {
        throw new Error(
          `Subscription price ${price.id} has no renewal interval`,
        );
      }
      const interval = {
        unit: price.renewalIntervalUnit,
        quantity: price.renewalIntervalQuantity,
      };
      const trialInterval = trialOf(
        price,
        context.checkout?.checkoutOptions.skip_trial ?? false,
      );
      const trial = trialInterval ? trialEnd(now, trialInterval) : null;
      // After a trial, periods are anchored on the day it ends.
      const anchor = (trial ?? now).getUTCDate();
      const usageBased = isUsageBased(price);
      const discount = context.discount?.discount;
      const recurring =
        discount && discount.duration !== 'once' ? discount : null;
      const s = await this.subscriptions.insert(manager, {
        storeId: context.store.id,
        testMode: context.testMode,
        customerId: context.customer.id,
        orderId: order.id,
        orderItemId: purchased.orderItem.id,
        productId: purchased.product.id,
        variantId: purchased.variant.id,
        productName: purchased.product.name,
        variantName: purchased.variant.name,
        userName: order.userName,
        userEmail: order.userEmail,
        status: trial ? 'on_trial' : 'active',
        cardBrand: context.payment?.method.cardBrand ?? null,
        cardLastFour: context.payment?.method.cardLastFour ?? null,
        paymentMethod: context.payment?.method.id ?? null,
        pauseMode: null,
        pauseResumesAt: null,
        cancelled: false,
        trialEndsAt: trial,
        billingAnchor: anchor,
        intervalUnit: interval.unit,
        intervalQuantity: interval.quantity,
        currentPeriodStart: now,
        renewsAt: trial ?? periodEnd(now, interval, anchor),
        endsAt: null,
        failedAttempts: 0,
        pendingProration: 0,
        currency: order.currency,
        taxName: order.taxName,
        taxRate: String(order.taxRate),
        taxInclusive: order.taxInclusive,
        taxNote: order.taxNote,
        discountAmount: recurring?.amount ?? null,
        discountAmountType: recurring?.amountType ?? null,
        discountEndsAt:
          recurring?.duration === 'repeating'
            ? periodEnd(
                now,
                { unit: 'month', quantity: recurring.durationInMonths },
                now.getUTCDate(),
              )
            : null,
        customData: context.customData,
        createdAt: now,
        updatedAt: now,
      });
      await this.subscriptions.insertItem(manager, {
        subscriptionId: s.id,
        storeId: s.storeId,
        testMode: s.testMode,
        priceId: price.id,
        quantity: usageBased ? 0 : purchased.quantity,
        isUsageBased: usageBased,
        // Renewals charge what the checkout's custom_price set, as the order did.
        customUnitPrice: usageBased
          ? null
          : (context.checkout?.customPrice ?? null),
        createdAt: now,
        updatedAt: now,
      });
      // The initial invoice charges what the order did, by the same rule
      // (the setup fee is a line of it); a metered plan's line shows that no
      // usage is billed yet.
      const lines = initialLines(
        purchased.orderItem,
        order.setupFee,
        usageBased ? priceTerms(price) : null,
      );
      const invoice = await this.invoices.insert(manager, {
        storeId: s.storeId,
        testMode: s.testMode,
        subscriptionId: s.id,
        customerId: s.customerId,
        userName: s.userName,
        userEmail: s.userEmail,
        billingReason: 'initial',
        cardBrand: s.cardBrand,
        cardLastFour: s.cardLastFour,
        currency: order.currency,
        currencyRate: String(order.currencyRate),
        currencyRateDate: order.currencyRateDate,
        status: 'paid',
        refundedAt: null,
        ...invoiceAmounts({
          lines,
          setupFee: order.setupFee,
          discountTotal: order.discountTotal,
          taxRate: order.taxRate,
          taxInclusive: order.taxInclusive,
          currency: order.currency,
          usdRate: order.currencyRate,
        }),
        taxInclusive: order.taxInclusive,
        taxNote: order.taxNote,
        // One sale, one invoice: the initial invoice is the order's.
        invoiceNumber: order.invoiceNumber,
        taxName: s.taxName,
        taxRate: s.taxRate,
        lines,
        refundedAmount: 0,
        refundedAmountUsd: 0,
        periodStart: now,
        periodEnd: s.renewsAt,
        paymentReference: context.payment?.paymentId ?? null,
        failureReason: null,
        createdAt: now,
        updatedAt: now,
      });
      await this.billing.save(manager, s, now);
      await this.billing.emit(manager, ['subscription_created'], s, now);
      await this.billing.emitInvoice(
        manager,
        'subscription_payment_success',
        invoice,
        s,
      );
    }
  }
}
