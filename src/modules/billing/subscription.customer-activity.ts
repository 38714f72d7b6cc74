import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { SignedUrls } from '../../common/signed-urls.service';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { PORTAL_LINK_LIFETIME_MS } from '../customer/customer.service';
import { Order } from '../order/order.entity';
import { ReceiptExtras, ReceiptExtraSource } from '../order/receipt-extras';
import { renewalTerms } from './subscription-self-service';
import { formatMoney, share, toUsdCents } from '../../common/money';
import { ExchangeRates } from '../currency/exchange-rates.service';
import {
  CustomerActivity,
  CustomerActivitySource,
  CustomerFigures,
  CustomerRef,
  PortalLists,
} from '../customer/customer-activity';
import { IntervalUnit } from './billing-period';
import { amountFor } from './pricing';
import { itemTerms, renewalDiscount } from './subscription-billing.service';
import { SubscriptionRepository } from './subscription.repository';
import { STATUS_FORMATTED } from './subscription.state';

/** Months per interval unit, to bring every plan to a monthly figure. */
/** Periods of one unit in a year: a month is a twelfth of it. */
const PER_YEAR: Record<IntervalUnit, number> = {
  day: 365,
  week: 52,
  month: 12,
  year: 1,
};

/** What subscriptions tell customers: MRR, whether they subscribe, and the portal list. */
@Injectable()
export class SubscriptionCustomerActivity
  implements CustomerActivitySource, ReceiptExtraSource, OnModuleInit
{
  constructor(
    private readonly subscriptions: SubscriptionRepository,
    private readonly activity: CustomerActivity,
    private readonly rates: ExchangeRates,
    private readonly signedUrls: SignedUrls,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly receipts: ReceiptExtras,
  ) {}

  onModuleInit() {
    this.activity.register(this);
    this.receipts.register(this);
  }

  /** The receipt's terms: those of the subscriptions the order started. */
  async terms(order: Order): Promise<string[]> {
    const rows = await this.subscriptions.withFirstItemsOf([order.customerId]);
    return rows
      .filter(({ subscription }) => subscription.orderId === order.id)
      .map(({ subscription, item, price }) =>
        renewalTerms(subscription, item, price),
      )
      .filter((terms): terms is string => terms !== null);
  }

  /**
   * MRR in USD cents: what each running (active or past_due) quantity-priced
   * plan's next renewal charges before tax (a repeating or forever discount
   * off while it lasts), per month; metered plans have no committed amount.
   * Trials, pauses and cancelled plans recur no more, or not yet.
   */
  async figures(
    customers: CustomerRef[],
  ): Promise<Map<number, Partial<CustomerFigures>>> {
    const rows = await this.subscriptions.withFirstItemsOf(
      customers.map((c) => c.id),
    );
    const result = new Map<number, Partial<CustomerFigures>>();
    // Today's rate (not the one frozen at purchase): MRR is a current figure.
    const usdRates = new Map<string, number>();
    for (const { subscription } of rows) {
      if (!usdRates.has(subscription.currency)) {
        const found = await this.rates.find(subscription.currency);
        usdRates.set(subscription.currency, found?.rate ?? 0);
      }
    }
    for (const { subscription: s, item, price } of rows) {
      const figures = result.get(s.customerId) ?? {
        mrr: 0,
        hasSubscription: true,
      };
      if (
        (s.status === 'active' || s.status === 'past_due') &&
        item &&
        price &&
        !item.isUsageBased
      ) {
        const amount = amountFor(itemTerms(price, item), item.quantity);
        const perPeriod = amount - renewalDiscount(s, amount, s.renewsAt);
        const monthly = share(
          perPeriod,
          PER_YEAR[s.intervalUnit],
          12 * s.intervalQuantity,
        );
        figures.mrr! += toUsdCents(
          monthly,
          s.currency,
          usdRates.get(s.currency)!,
        );
      }
      result.set(s.customerId, figures);
    }
    return result;
  }

  async portal(customer: CustomerRef): Promise<Partial<PortalLists>> {
    const rows = await this.subscriptions.withFirstItemsOf([customer.id]);
    const expiresAt = new Date(
      this.clock.now().getTime() + PORTAL_LINK_LIFETIME_MS,
    );
    return {
      subscriptions: rows.map(({ subscription: s, item, price }) => ({
        productName: s.productName,
        variantName: s.variantName,
        status: STATUS_FORMATTED[s.status],
        renewsAt:
          s.status === 'cancelled' || s.status === 'expired'
            ? null
            : s.renewsAt,
        endsAt: s.endsAt,
        priceFormatted:
          item && price && !item.isUsageBased
            ? `${formatMoney(amountFor(itemTerms(price, item), item.quantity), s.currency)} / ${s.intervalQuantity > 1 ? `${s.intervalQuantity} ` : ''}${s.intervalUnit}${s.intervalQuantity > 1 ? 's' : ''}`
            : null,
        terms: renewalTerms(s, item, price),
        manageUrl: this.signedUrls.sign(
          this.config.http.publicBaseUrl,
          `/portal/subscriptions/${s.id}`,
          { expiresAt },
        ),
      })),
    };
  }
}
