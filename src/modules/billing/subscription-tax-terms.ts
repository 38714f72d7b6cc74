import { Injectable, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Customer } from '../customer/customer.entity';
import {
  CustomerActivity,
  CustomerActivitySource,
} from '../customer/customer-activity';
import { Store } from '../store/store.entity';
import { TaxEngine } from '../tax/tax-engine';
import { SubscriptionBilling } from './subscription-billing.service';
import { Subscription } from './subscription.entity';
import { SubscriptionRepository } from './subscription.repository';

/** Subscriptions that will charge again: their tax follows the address. */
const RENEWING = ['on_trial', 'active', 'past_due', 'unpaid', 'paused'];

/**
 * Renewals charge the tax terms a subscription keeps (`tax_name`,
 * `tax_rate`, `tax_inclusive`, `tax_note`), frozen at the purchase. When the
 * customer's billing address or tax number changes (PATCH /v1/customers or
 * the portal's billing form, both through CustomerService), the tax engine
 * decides them again for each renewing subscription as a purchase would
 * (the number checked offline: no network call inside the transaction), and
 * a subscription whose terms changed is saved with `subscription_updated`.
 * The next renewal invoice is taxed by the new terms.
 */
@Injectable()
export class SubscriptionTaxTerms
  implements CustomerActivitySource, OnModuleInit
{
  constructor(
    private readonly activity: CustomerActivity,
    private readonly subscriptions: SubscriptionRepository,
    private readonly billing: SubscriptionBilling,
    private readonly taxes: TaxEngine,
  ) {}

  onModuleInit() {
    this.activity.register(this);
  }

  async billingChanged(
    manager: EntityManager,
    customer: Customer,
    now: Date,
  ): Promise<void> {
    // Without a country there is nothing to decide by: the terms stay.
    if (!customer.country) return;
    const owned = await manager.find(Subscription, {
      where: { customerId: customer.id },
      order: { id: 'ASC' },
    });
    const renewing = owned.filter((s) => RENEWING.includes(s.status));
    if (renewing.length === 0) return;
    const store = await manager.findOneByOrFail(Store, {
      id: customer.storeId,
    });
    const items = await this.subscriptions.firstItems(
      manager,
      renewing.map((s) => s.id),
    );
    for (const { id } of renewing) {
      const s = await this.subscriptions.lock(manager, id);
      const item = items.get(id);
      if (!s || !item || !RENEWING.includes(s.status)) continue;
      const price = await this.subscriptions.price(manager, item.priceId);
      if (!price) continue;
      const decision = await this.taxes.decide({
        store,
        country: customer.country,
        zip: customer.zip,
        state: customer.region,
        taxNumber: customer.taxNumber,
        taxCode: price.taxCode,
        refuseInvalidNumber: false,
      });
      const terms = {
        taxName: decision.tax?.name ?? null,
        taxRate: decision.tax?.rate ?? 0,
        taxInclusive: decision.inclusive,
        taxNote: decision.note,
      };
      if (
        terms.taxName === s.taxName &&
        terms.taxRate === Number(s.taxRate) &&
        terms.taxInclusive === s.taxInclusive &&
        terms.taxNote === s.taxNote
      )
        continue;
      s.taxName = terms.taxName;
      s.taxRate = String(terms.taxRate);
      s.taxInclusive = terms.taxInclusive;
      s.taxNote = terms.taxNote;
      await this.billing.save(manager, s, now);
      await this.billing.emit(manager, ['subscription_updated'], s, now, {
        changed: ['tax'],
      });
    }
  }
}
