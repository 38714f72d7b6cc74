import { Injectable, OnModuleInit } from '@nestjs/common';
import { isUsageBased } from '../catalog/price-rules';
import {
  PurchaseContext,
  PurchaseExtension,
  PurchaseExtensions,
} from '../checkout/purchase-extension';
import { periodEnd, trialEnd } from './billing-period';
import {
  amountLine,
  InvoiceLineRecord,
  planName,
  priceLine,
} from './invoice-lines';
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
      const trial =
        price.trialIntervalUnit &&
        price.trialIntervalQuantity &&
        !context.checkout?.checkoutOptions.skip_trial
          ? trialEnd(now, {
              unit: price.trialIntervalUnit,
              quantity: price.trialIntervalQuantity,
            })
          : null;
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
        createdAt: now,
        updatedAt: now,
      });
      // The initial invoice is what the order charged (setup fee included);
      // a metered plan's line shows that no usage is billed yet.
      const { orderItem } = purchased;
      const name = planName(orderItem.productName, orderItem.variantName);
      const lines: InvoiceLineRecord[] = [
        usageBased
          ? priceLine(`${name} - usage`, 0, priceTerms(price))
          : {
              description: name,
              quantity: orderItem.quantity,
              unit_price: orderItem.price,
              total: orderItem.price * orderItem.quantity,
            },
      ];
      if (order.setupFee > 0) {
        lines.push(amountLine('Setup fee', order.setupFee));
      }
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
        subtotal: order.subtotal + order.setupFee,
        discountTotal: order.discountTotal,
        tax: order.tax,
        taxInclusive: order.taxInclusive,
        taxName: s.taxName,
        taxRate: s.taxRate,
        lines,
        total: order.total,
        refundedAmount: 0,
        subtotalUsd: order.subtotalUsd + order.setupFeeUsd,
        discountTotalUsd: order.discountTotalUsd,
        taxUsd: order.taxUsd,
        totalUsd: order.totalUsd,
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
