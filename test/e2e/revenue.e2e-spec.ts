import {
  createDiscount,
  getCustomer,
  getStore,
  issueOrderRefund,
  issueSubscriptionInvoiceRefund,
  listSubscriptionInvoices,
} from '@lemonsqueezy/lemonsqueezy.js';
import { RenewalService } from '../../src/modules/billing/renewal.service';
import { buySubscription, freezeClock } from '../support/billing';
import { buy, buyNowUrl } from '../support/commerce';
import {
  createMerchant,
  createPricedProduct,
  Merchant,
} from '../support/factories';
import { useSdkAgainst } from '../support/sdk';
import { startTestApp, TestApp } from '../support/test-app';

const at = (iso: string) => new Date(iso);
const BUYER = { email: 'revenue@example.com', name: 'Rhea Venue' };

/**
 * Customer and store figures over a subscription's life: every paid charge
 * (orders, and subscription invoices other than the initial one, which is
 * the first order's money) less every refund; sales are orders.
 */
describe('revenue: customer and store figures', () => {
  let t: TestApp;
  let merchant: Merchant;
  let storeId: number;
  let setNow: (instant: Date) => void;
  let restoreFetch: () => void;

  beforeAll(async () => {
    t = await startTestApp();
    merchant = await createMerchant(t.app, ['Revenue Store']);
    storeId = merchant.stores[0].id;
    setNow = freezeClock(t.app, at('2027-01-10T12:00:00Z'));
    restoreFetch = useSdkAgainst(t.baseUrl, merchant.testKey);
  });
  afterAll(async () => {
    restoreFetch();
    await t.close();
  });

  const figures = async (customerId: string) => {
    const customer = await getCustomer(customerId);
    const store = await getStore(storeId);
    expect(customer.error).toBeNull();
    expect(store.error).toBeNull();
    const c = customer.data!.data.attributes;
    const s = store.data!.data.attributes;
    return {
      total_revenue_currency: c.total_revenue_currency,
      mrr: c.mrr,
      total_sales: s.total_sales,
      total_revenue: s.total_revenue,
      thirty_day_sales: s.thirty_day_sales,
      thirty_day_revenue: s.thirty_day_revenue,
    };
  };

  it('counts renewals and refunds once each, and MRR as the plans bill', async () => {
    // $99 a month, and a $25 one-time purchase by the same customer.
    const monthly = await buySubscription(
      t.baseUrl,
      merchant.testKey,
      storeId,
      { unit_price: 9900 },
      BUYER,
    );
    const customerId = String(monthly.subscription.attributes.customer_id);
    const oneTime = await createPricedProduct(
      t.baseUrl,
      merchant.testKey,
      storeId,
      { unit_price: 2500 },
    );
    const single = await buy(
      t.baseUrl,
      await buyNowUrl(t.baseUrl, merchant.testKey, oneTime.product.id),
      BUYER,
    ).expect(201);
    expect(await figures(customerId)).toEqual({
      total_revenue_currency: 12400,
      mrr: 9900,
      total_sales: 2,
      total_revenue: 12400,
      thirty_day_sales: 2,
      thirty_day_revenue: 12400,
    });

    // A month on, the renewal charges $99 more: revenue, not a sale.
    setNow(at('2027-02-10T12:00:00Z'));
    await t.app.get(RenewalService).sweep(at('2027-02-10T12:00:00Z'));
    const invoices = await listSubscriptionInvoices({
      filter: { subscriptionId: monthly.subscription.id },
    });
    const [renewal, initial] = invoices.data!.data;
    expect(renewal.attributes).toMatchObject({
      billing_reason: 'renewal',
      status: 'paid',
      total: 9900,
    });
    expect(initial.attributes.billing_reason).toBe('initial');
    expect(await figures(customerId)).toEqual({
      total_revenue_currency: 22300,
      mrr: 9900,
      total_sales: 2,
      total_revenue: 22300,
      // The purchases were 31 days ago; the renewal is today.
      thirty_day_sales: 0,
      thirty_day_revenue: 9900,
    });

    // Partial refunds of the renewal and of the one-time order come off;
    // the order is still a sale.
    expect((await issueSubscriptionInvoiceRefund(renewal.id, 1500)).error).toBe(
      null,
    );
    expect((await issueOrderRefund(single.body.data.id, 500)).error).toBe(null);
    expect(await figures(customerId)).toEqual({
      total_revenue_currency: 20300,
      mrr: 9900,
      total_sales: 2,
      total_revenue: 20300,
      thirty_day_sales: 0,
      thirty_day_revenue: 8400,
    });

    // A refund issued on the initial invoice gives back the first order's
    // money: it comes off too.
    expect((await issueSubscriptionInvoiceRefund(initial.id, 900)).error).toBe(
      null,
    );
    // A fully refunded order is no sale and no revenue.
    expect((await issueOrderRefund(single.body.data.id, 2000)).error).toBe(
      null,
    );
    expect(await figures(customerId)).toEqual({
      total_revenue_currency: 17400,
      mrr: 9900,
      total_sales: 1,
      total_revenue: 17400,
      thirty_day_sales: 0,
      thirty_day_revenue: 8400,
    });
  });

  it('gives MRR per month, after a recurring discount, for running plans only', async () => {
    setNow(at('2027-03-01T00:00:00Z'));
    const buyer = { email: 'mrr@example.com', name: 'Em Arr' };
    const discount = await createDiscount({
      storeId,
      name: 'Ten off forever',
      code: 'TENFOREVER',
      amount: 10,
      amountType: 'percent',
      duration: 'forever',
    });
    expect(discount.error).toBeNull();
    // $20 a month less 10 % forever: $18; $120 a year: $10 a month.
    const discounted = await buySubscription(
      t.baseUrl,
      merchant.testKey,
      storeId,
      { unit_price: 2000 },
      { ...buyer, discount_code: 'TENFOREVER' },
    );
    await buySubscription(
      t.baseUrl,
      merchant.testKey,
      storeId,
      { unit_price: 12000, renewal_interval_unit: 'year' },
      buyer,
    );
    // A trial is not recurring revenue yet.
    await buySubscription(
      t.baseUrl,
      merchant.testKey,
      storeId,
      {
        unit_price: 5000,
        trial_interval_unit: 'day',
        trial_interval_quantity: 7,
      },
      buyer,
    );
    const customerId = String(discounted.subscription.attributes.customer_id);
    const customer = await getCustomer(customerId);
    expect(customer.data!.data.attributes).toMatchObject({
      mrr: 2800,
      mrr_formatted: '$28.00',
      // $18 and $120 paid; the trial's order charged nothing.
      total_revenue_currency: 13800,
    });
  });
});
