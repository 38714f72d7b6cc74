import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import request from 'supertest';
import { DataSource } from 'typeorm';
import {
  cancelSubscription,
  createCheckout,
  createUsageRecord,
  getOrder,
  getSubscription,
  getSubscriptionInvoice,
  getSubscriptionItemCurrentUsage,
  issueSubscriptionInvoiceRefund,
  listSubscriptionInvoices,
  listSubscriptionItems,
  listSubscriptions,
  listUsageRecords,
  updateSubscription,
  updateSubscriptionItem,
} from '@lemonsqueezy/lemonsqueezy.js';
import { RenewalService } from '../../src/modules/billing/renewal.service';
import { buySubscription, freezeClock, outboxEvents } from '../support/billing';
import { buy, buyNowUrl, pathOf } from '../support/commerce';
import {
  createMerchant,
  createPrice,
  createPricedProduct,
  createProduct,
  createVariant,
  Merchant,
} from '../support/factories';
import { useSdkAgainst } from '../support/sdk';
import { startTestApp, TestApp } from '../support/test-app';

type Attributes = Record<string, unknown>;

const at = (iso: string) => new Date(iso);

describe('billing: a subscription from purchase to expiry', () => {
  let t: TestApp;
  let merchant: Merchant;
  let storeId: number;
  let setNow: (instant: Date) => void;
  let restoreFetch: () => void;

  beforeAll(async () => {
    // 1,000 usage posts in a few seconds: far above the default 300 a minute.
    t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '100000' });
    merchant = await createMerchant(t.app);
    storeId = merchant.stores[0].id;
    setNow = freezeClock(t.app, at('2027-01-10T12:00:00Z'));
    restoreFetch = useSdkAgainst(t.baseUrl, merchant.testKey);
  });
  afterAll(async () => {
    restoreFetch();
    await t.close();
  });

  const api = (key = merchant.testKey) => ({
    get: (path: string) =>
      request(t.baseUrl)
        .get(path)
        .set('Authorization', `Bearer ${key}`)
        .set('Accept', 'application/vnd.api+json'),
    send: (method: 'post' | 'patch', path: string, body: unknown) =>
      request(t.baseUrl)
        [method](path)
        .set('Authorization', `Bearer ${key}`)
        .set('Content-Type', 'application/vnd.api+json')
        .send(body as object),
  });
  const sweep = (iso: string) => t.app.get(RenewalService).sweep(at(iso));
  const attributesOf = async (id: string) => {
    const { data, error } = await getSubscription(id);
    expect(error).toBeNull();
    return data!.data.attributes as unknown as Attributes;
  };
  const invoicesOf = async (id: string) => {
    const { data, error } = await listSubscriptionInvoices({
      filter: { subscriptionId: id },
      page: { size: 100 },
    });
    expect(error).toBeNull();
    return data!.data.map(
      (i) =>
        ({
          id: i.id,
          ...(i.attributes as unknown as Attributes),
        }) as Attributes & { id: string },
    );
  };
  const eventNames = async (since: number) =>
    (await outboxEvents(t.app, storeId)).slice(since).map((e) => e.name);
  const eventCount = async () => (await outboxEvents(t.app, storeId)).length;

  it('walks purchase, prorations, three renewals, dunning, pause, cancel, resume and expiry', async () => {
    // Purchase: two seats at $10.00 a month.
    const bought = await buySubscription(
      t.baseUrl,
      merchant.testKey,
      storeId,
      { unit_price: 1000 },
      { quantity: 2 },
    );
    const id = bought.subscription.id;
    let s = await attributesOf(id);
    expect(Object.keys(s)).toHaveLength(25);
    expect(s).toMatchObject({
      store_id: storeId,
      order_id: Number(bought.orderId),
      variant_id: Number(bought.variantId),
      status: 'active',
      status_formatted: 'Active',
      card_brand: 'visa',
      card_last_four: '4242',
      pause: null,
      cancelled: false,
      trial_ends_at: null,
      billing_anchor: 10,
      renews_at: '2027-02-10T12:00:00.000000Z',
      ends_at: null,
      test_mode: true,
    });
    const first = s.first_subscription_item as Attributes;
    expect(Object.keys(first)).toHaveLength(7);
    expect(first).toMatchObject({ quantity: 2, is_usage_based: false });
    expect(Object.keys(s.urls as object)).toEqual([
      'update_payment_method',
      'customer_portal',
      'customer_portal_update_subscription',
    ]);
    const itemId = String(first.id);
    const customer = await api()
      .get(`/v1/customers/${String(s.customer_id)}`)
      .expect(200);
    expect(customer.body.data.attributes).toMatchObject({
      mrr: 2000,
      mrr_formatted: '$20.00',
      urls: { customer_portal: expect.stringMatching(/signature=/) },
    });
    let invoices = await invoicesOf(id);
    expect(invoices).toHaveLength(1);
    expect(Object.keys(invoices[0])).toHaveLength(38); // 34 attributes, attempt_count, next_retry_at, invoice_number + id
    expect(invoices[0]).toMatchObject({
      billing_reason: 'initial',
      status: 'paid',
      total: 2000,
      card_brand: 'visa',
    });
    expect(invoices[0].urls).toEqual({
      invoice_url: expect.stringMatching(/signature=/),
    });
    expect(await eventNames(0)).toEqual([
      'order_created',
      'subscription_created',
      'subscription_payment_success',
    ]);

    // Quantity changes 16 of 31 days before the renewal, one per flag rule.
    setNow(at('2027-01-25T12:00:00Z'));
    let events = await eventCount();
    const items = await listSubscriptionItems({
      filter: { subscriptionId: id },
    });
    expect(items.data!.data.map((i) => i.id)).toEqual([itemId]);
    const immediate = await updateSubscriptionItem(itemId, {
      quantity: 3,
      invoiceImmediately: true,
    });
    expect(immediate.error).toBeNull();
    expect(immediate.data!.data.attributes.quantity).toBe(3);
    invoices = await invoicesOf(id);
    expect(invoices[0]).toMatchObject({
      billing_reason: 'updated',
      status: 'paid',
      // (3 − 2 seats) × $10 × 16/31 days.
      total: Math.round((1000 * 16) / 31),
    });
    // The change commits first; the charge is made and settled after it.
    expect(await eventNames(events)).toEqual([
      'subscription_updated',
      'subscription_payment_success',
    ]);
    await updateSubscriptionItem(itemId, { quantity: 4 }); // added to the renewal
    await updateSubscriptionItem(itemId, {
      quantity: 5,
      invoiceImmediately: true,
      disableProrations: true,
    }); // nothing now, 5 seats from the renewal on
    expect(await invoicesOf(id)).toHaveLength(2);

    // Renewal 1: two sweeps at the same instant bill once.
    setNow(at('2027-02-10T12:00:00Z'));
    events = await eventCount();
    await Promise.all([
      sweep('2027-02-10T12:00:00Z'),
      sweep('2027-02-10T12:00:00Z'),
    ]);
    await sweep('2027-02-10T12:00:00Z');
    invoices = await invoicesOf(id);
    expect(invoices.filter((i) => i.billing_reason === 'renewal')).toHaveLength(
      1,
    );
    expect(invoices[0]).toMatchObject({
      billing_reason: 'renewal',
      status: 'paid',
      // Credit and charge are each rounded to cents: 2065 − 1548.
      subtotal:
        5000 + Math.round((4000 * 16) / 31) - Math.round((3000 * 16) / 31),
    });
    s = await attributesOf(id);
    expect(s).toMatchObject({
      status: 'active',
      renews_at: '2027-03-10T12:00:00.000000Z',
    });
    expect(await eventNames(events)).toEqual([
      'subscription_payment_success',
      'subscription_updated',
    ]);

    // Renewal 2: the card starts declining (the issuer's side, simulated in
    // the gateway's terms) → past_due, then the customer saves a new card.
    await t.app
      .get(DataSource)
      .query(
        `UPDATE subscriptions SET payment_method = 'pm_test_declined' WHERE id = $1`,
        [id],
      );
    setNow(at('2027-03-10T12:00:00Z'));
    events = await eventCount();
    await sweep('2027-03-10T12:00:00Z');
    s = await attributesOf(id);
    expect(s).toMatchObject({
      status: 'past_due',
      renews_at: '2027-03-11T12:00:00.000000Z', // the next retry (DUNNING_SCHEDULE)
    });
    invoices = await invoicesOf(id);
    expect(invoices[0]).toMatchObject({
      billing_reason: 'renewal',
      status: 'pending',
      total: 5000,
    });
    expect(invoices[0].urls).toEqual({ invoice_url: null });
    expect(await eventNames(events)).toEqual([
      'subscription_payment_failed',
      'subscription_updated',
    ]);
    const urls = s.urls as Record<string, string>;
    await request(t.baseUrl)
      .get(pathOf(urls.update_payment_method))
      .expect(200);
    events = await eventCount();
    await request(t.baseUrl)
      .post(pathOf(urls.update_payment_method))
      .type('form')
      .send({ card_number: '5555555555554444' })
      .expect(201);
    s = await attributesOf(id);
    expect(s).toMatchObject({
      status: 'active',
      card_brand: 'mastercard',
      card_last_four: '4444',
      renews_at: '2027-04-10T12:00:00.000000Z',
    });
    invoices = await invoicesOf(id);
    expect(invoices[0]).toMatchObject({
      status: 'paid',
      card_last_four: '4444',
    });
    expect(await eventNames(events)).toEqual([
      'subscription_payment_success',
      'subscription_payment_recovered',
      'subscription_updated',
    ]);

    // Renewal 3.
    setNow(at('2027-04-10T12:00:00Z'));
    await sweep('2027-04-10T12:00:00Z');
    invoices = await invoicesOf(id);
    expect(invoices.filter((i) => i.billing_reason === 'renewal')).toHaveLength(
      3,
    );
    expect(invoices[0]).toMatchObject({ status: 'paid', total: 5000 });

    // Pause: a paused period is not charged.
    setNow(at('2027-04-20T12:00:00Z'));
    events = await eventCount();
    const paused = await updateSubscription(id, { pause: { mode: 'void' } });
    expect(paused.error).toBeNull();
    expect(paused.data!.data.attributes).toMatchObject({
      status: 'paused',
      pause: { mode: 'void', resumes_at: null },
    });
    expect(await eventNames(events)).toEqual([
      'subscription_updated',
      'subscription_paused',
    ]);
    setNow(at('2027-05-10T12:00:00Z'));
    await sweep('2027-05-10T12:00:00Z');
    expect(await invoicesOf(id)).toHaveLength(invoices.length);
    s = await attributesOf(id);
    expect(s.renews_at).toBe('2027-06-10T12:00:00.000000Z');
    events = await eventCount();
    const unpaused = await updateSubscription(id, { pause: null });
    expect(unpaused.data!.data.attributes.status).toBe('active');
    expect(await eventNames(events)).toEqual([
      'subscription_updated',
      'subscription_unpaused',
    ]);

    // Cancel (DELETE), resume, cancel again, expire at the end of the period.
    events = await eventCount();
    const cancelled = await cancelSubscription(id);
    expect(cancelled.statusCode).toBe(200);
    expect(cancelled.data!.data.attributes).toMatchObject({
      status: 'cancelled',
      cancelled: true,
      ends_at: '2027-06-10T12:00:00.000000Z',
    });
    const resumed = await updateSubscription(id, { cancelled: false });
    expect(resumed.data!.data.attributes).toMatchObject({
      status: 'active',
      cancelled: false,
      ends_at: null,
    });
    await updateSubscription(id, { cancelled: true });
    expect(await eventNames(events)).toEqual([
      'subscription_updated',
      'subscription_cancelled',
      'subscription_updated',
      'subscription_resumed',
      'subscription_updated',
      'subscription_cancelled',
    ]);
    events = await eventCount();
    setNow(at('2027-06-10T12:00:01Z'));
    await sweep('2027-06-10T12:00:01Z');
    s = await attributesOf(id);
    expect(s).toMatchObject({ status: 'expired', status_formatted: 'Expired' });
    expect(await eventNames(events)).toEqual([
      'subscription_updated',
      'subscription_expired',
    ]);
    expect((await invoicesOf(id)).length).toBe(invoices.length);
    await api()
      .send('patch', `/v1/subscriptions/${id}`, {
        data: { type: 'subscriptions', id, attributes: { cancelled: false } },
      })
      .expect(422);

    // A partial refund of the last renewal keeps it paid (spec 3: pending,
    // paid, void, refunded), as on orders; the rest makes it refunded.
    events = await eventCount();
    const lastRenewal = (await invoicesOf(id)).find(
      (i) => i.billing_reason === 'renewal',
    )!;
    const refund = await issueSubscriptionInvoiceRefund(lastRenewal.id, 1500);
    expect(refund.error).toBeNull();
    expect(refund.data!.data.attributes).toMatchObject({
      status: 'paid',
      status_formatted: 'Paid',
      refunded: false,
      refunded_at: null,
      refunded_amount: 1500,
      refunded_amount_usd: 1500,
      refunded_amount_formatted: '$15.00',
    });
    expect(await eventNames(events)).toEqual(['subscription_payment_refunded']);
    const again = await getSubscriptionInvoice(lastRenewal.id);
    expect(again.data!.data.attributes.refunded_amount).toBe(1500);
    await api()
      .send('post', `/v1/subscription-invoices/${lastRenewal.id}/refund`, {
        data: {
          type: 'subscription-invoices',
          id: lastRenewal.id,
          attributes: { amount: 5000 },
        },
      })
      .expect(422);
    const refundedOnes = () =>
      listSubscriptionInvoices({
        filter: { subscriptionId: id, refunded: true },
      });
    expect((await refundedOnes()).data!.data).toEqual([]);
    const rest = Number(lastRenewal.total) - 1500;
    const full = await issueSubscriptionInvoiceRefund(lastRenewal.id, rest);
    expect(full.error).toBeNull();
    expect(full.data!.data.attributes).toMatchObject({
      status: 'refunded',
      status_formatted: 'Refunded',
      refunded: true,
      refunded_amount: lastRenewal.total,
      refunded_amount_usd: lastRenewal.total_usd,
    });
    expect(full.data!.data.attributes.refunded_at).toMatch(/Z$/);
    expect(await eventNames(events)).toEqual([
      'subscription_payment_refunded',
      'subscription_payment_refunded',
    ]);
    expect((await refundedOnes()).data!.data.map((i) => i.id)).toEqual([
      lastRenewal.id,
    ]);
  }, 120_000);

  it('meters usage exactly under parallel clients and bills it at renewal', async () => {
    setNow(at('2027-01-10T12:00:00Z'));
    const { subscription } = await buySubscription(
      t.baseUrl,
      merchant.testKey,
      storeId,
      {
        unit_price: null,
        unit_price_decimal: '2.5',
        usage_aggregation: 'sum',
      },
    );
    const s = subscription.attributes;
    const item = s.first_subscription_item as Attributes;
    expect(item).toMatchObject({ quantity: 0, is_usage_based: true });
    const itemId = String(item.id);
    // Nothing was charged at purchase, but the card was verified and saved
    // for renewals; the customer can still replace it on the portal.
    expect(s.card_last_four).toBe('4242');
    await request(t.baseUrl)
      .post(pathOf((s.urls as Record<string, string>).update_payment_method))
      .send({ card_number: '4242 4242 4242 4242' })
      .expect(201);

    // 10 clients × 100 increments.
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        for (let n = 0; n < 100; n++) {
          await api()
            .send('post', '/v1/usage-records', {
              data: {
                type: 'usage-records',
                attributes: { quantity: 1 },
                relationships: {
                  'subscription-item': {
                    data: { type: 'subscription-items', id: itemId },
                  },
                },
              },
            })
            .expect(201);
        }
      }),
    );
    const usage = await getSubscriptionItemCurrentUsage(itemId);
    expect(usage.error).toBeNull();
    expect(usage.data!.meta).toEqual({
      period_start: '2027-01-10T12:00:00.000000Z',
      period_end: '2027-02-10T12:00:00.000000Z',
      quantity: 1000,
      interval_unit: 'month',
      interval_quantity: 1,
    });

    // `set` replaces the total; increments after it add to it.
    const created = await createUsageRecord({
      subscriptionItemId: itemId,
      quantity: 400,
      action: 'set',
    });
    expect(created.statusCode).toBe(201);
    expect(Object.keys(created.data!.data.attributes)).toHaveLength(5);
    await createUsageRecord({ subscriptionItemId: itemId, quantity: 20 });
    expect(
      (await getSubscriptionItemCurrentUsage(itemId)).data!.meta.quantity,
    ).toBe(420);
    const list = await listUsageRecords({
      filter: { subscriptionItemId: itemId },
      page: { size: 2 },
    });
    expect(list.data!.meta.page.total).toBe(1002);
    expect(list.data!.data[0].attributes).toMatchObject({
      quantity: 20,
      action: 'increment',
    });

    // Billed in arrears at the renewal: 420 units × 2.5¢.
    await sweep('2027-02-10T12:00:00Z');
    const { data } = await listSubscriptionInvoices({
      filter: { subscriptionId: subscription.id },
    });
    expect(data!.data[0].attributes).toMatchObject({
      billing_reason: 'renewal',
      subtotal: 1050,
      status: 'paid',
    });
    expect(
      (await getSubscriptionItemCurrentUsage(itemId)).data!.meta,
    ).toMatchObject({
      period_start: '2027-02-10T12:00:00.000000Z',
      quantity: 0,
    });

    // Usage-based items refuse quantity changes; quantity items have no current usage.
    await api()
      .send('patch', `/v1/subscription-items/${itemId}`, {
        data: {
          type: 'subscription-items',
          id: itemId,
          attributes: { quantity: 3 },
        },
      })
      .expect(422);

    // A cancelled subscription takes no more usage, and nothing is written.
    expect((await cancelSubscription(subscription.id)).statusCode).toBe(200);
    const refused = await api()
      .send('post', '/v1/usage-records', {
        data: {
          type: 'usage-records',
          attributes: { quantity: 5 },
          relationships: {
            'subscription-item': {
              data: { type: 'subscription-items', id: itemId },
            },
          },
        },
      })
      .expect(422);
    expect(refused.body.errors[0].detail).toBe(
      'Usage cannot be reported for a cancelled subscription.',
    );
    expect(
      (await getSubscriptionItemCurrentUsage(itemId)).data!.meta.quantity,
    ).toBe(0);
    const after = await listUsageRecords({
      filter: { subscriptionItemId: itemId },
    });
    expect(after.data!.meta.page.total).toBe(1002);
  }, 180_000);

  it('charges a metered plan nothing but its setup fee at signup, and bills the usage at the first renewal', async () => {
    setNow(at('2027-01-10T12:00:00Z'));
    const metered = {
      category: 'subscription',
      renewal_interval_unit: 'month',
      renewal_interval_quantity: 1,
      unit_price: 10,
      usage_aggregation: 'sum',
    };
    const signUp = async (price: Attributes) => {
      const { variantId } = await createPricedProduct(
        t.baseUrl,
        merchant.testKey,
        storeId,
        price,
      );
      const checkout = await createCheckout(storeId, variantId, {
        checkoutData: { email: 'metered@example.com' },
        preview: true,
      });
      expect(checkout.error).toBeNull();
      const { preview, url } = checkout.data!.data.attributes;
      const bought = await buy(t.baseUrl, url).expect(201);
      const orderId = bought.body.data.id as string;
      const order = await getOrder(orderId);
      expect(order.error).toBeNull();
      const subscriptionId = (
        await api().get(`/v1/subscriptions?filter[order_id]=${orderId}`)
      ).body.data[0].id as string;
      return {
        preview,
        order: order.data!.data.attributes as unknown as Attributes,
        subscriptionId,
      };
    };

    // 10¢ a unit, billed in arrears: nothing is due at signup.
    const plain = await signUp(metered);
    expect(plain.preview).toMatchObject({
      subtotal: 0,
      setup_fee: 0,
      total: 0,
    });
    expect(plain.order).toMatchObject({
      subtotal: 0,
      total: 0,
      status: 'paid',
    });
    // One subscription bought; its unit price is charged per unit used.
    expect(plain.order.first_order_item).toMatchObject({
      quantity: 1,
      price: 0,
    });
    const s = await attributesOf(plain.subscriptionId);
    expect(s.first_subscription_item).toMatchObject({
      quantity: 0,
      is_usage_based: true,
    });
    const [initial] = await invoicesOf(plain.subscriptionId);
    expect(initial).toMatchObject({
      billing_reason: 'initial',
      subtotal: 0,
      total: 0,
      status: 'paid',
    });

    // With a setup fee, the setup fee alone is due.
    const withFee = await signUp({
      ...metered,
      setup_fee_enabled: true,
      setup_fee: 250,
    });
    expect(withFee.preview).toMatchObject({
      subtotal: 0,
      setup_fee: 250,
      total: 250,
    });
    expect(withFee.order).toMatchObject({
      subtotal: 0,
      setup_fee: 250,
      total: 250,
    });
    const [feeInvoice] = await invoicesOf(withFee.subscriptionId);
    expect(feeInvoice).toMatchObject({ billing_reason: 'initial', total: 250 });

    // The first renewal bills the period's usage: 7 units × 10¢.
    const itemId = String((s.first_subscription_item as Attributes).id);
    expect(
      (await createUsageRecord({ subscriptionItemId: itemId, quantity: 7 }))
        .statusCode,
    ).toBe(201);
    await sweep('2027-02-10T12:00:00Z');
    const [renewal] = await invoicesOf(plain.subscriptionId);
    expect(renewal).toMatchObject({
      billing_reason: 'renewal',
      subtotal: 70,
      total: 70,
      status: 'paid',
    });
  });

  it('refuses what the spec refuses and hides other modes', async () => {
    setNow(at('2027-01-10T12:00:00Z'));
    const { subscription } = await buySubscription(
      t.baseUrl,
      merchant.testKey,
      storeId,
      {
        unit_price: 900,
        trial_interval_unit: 'day',
        trial_interval_quantity: 14,
      },
    );
    expect(subscription.attributes).toMatchObject({
      status: 'on_trial',
      trial_ends_at: '2027-01-24T12:00:00.000000Z',
      renews_at: '2027-01-24T12:00:00.000000Z',
    });
    const itemId = String(
      (subscription.attributes.first_subscription_item as Attributes).id,
    );
    await api()
      .get(`/v1/subscription-items/${itemId}/current-usage`)
      .expect(404);
    const usage = await api()
      .send('post', '/v1/usage-records', {
        data: {
          type: 'usage-records',
          attributes: { quantity: 1 },
          relationships: {
            'subscription-item': {
              data: { type: 'subscription-items', id: itemId },
            },
          },
        },
      })
      .expect(422);
    expect(usage.body.errors[0].source).toEqual({
      pointer: '/data/relationships/subscription-item',
    });
    const bad = await api()
      .send('patch', `/v1/subscriptions/${subscription.id}`, {
        data: {
          type: 'subscriptions',
          id: subscription.id,
          attributes: { pause: { mode: 'later' }, billing_anchor: 40 },
        },
      })
      .expect(422);
    expect(bad.body.errors[0].source).toEqual({
      pointer: '/data/attributes/billing_anchor',
    });
    await api()
      .send('post', '/v1/usage-records', {
        data: { type: 'usage-records', attributes: { quantity: 0 } },
      })
      .expect(422);
    await api(merchant.liveKey)
      .get(`/v1/subscriptions/${subscription.id}`)
      .expect(404);
    await api(merchant.liveKey)
      .get(`/v1/subscription-items/${itemId}`)
      .expect(404);
    const live = await api(merchant.liveKey)
      .get('/v1/subscriptions')
      .expect(200);
    expect(live.body.data).toEqual([]);
    // A status no subscription has matches nothing (issue 22); it is no error.
    const none = await api()
      .get('/v1/subscriptions?filter[status]=nope')
      .expect(200);
    expect(none.body.data).toEqual([]);

    // The trial converts at its end: the first charge.
    await sweep('2027-01-24T12:00:00Z');
    const after = await api()
      .get(
        `/v1/subscriptions/${subscription.id}?include=subscription-invoices,customer`,
      )
      .expect(200);
    expect(after.body.data.attributes).toMatchObject({
      status: 'active',
      trial_ends_at: null,
      billing_anchor: 24,
      renews_at: '2027-02-24T12:00:00.000000Z',
    });
    const included = after.body.included as {
      type: string;
      attributes: Attributes;
    }[];
    expect(included.map((r) => r.type).sort()).toEqual([
      'customers',
      'subscription-invoices',
      'subscription-invoices',
    ]);
    expect(
      included.find(
        (r) =>
          r.type === 'subscription-invoices' &&
          r.attributes.billing_reason === 'renewal',
      )?.attributes.total,
    ).toBe(900);
    // The trial's own order charged nothing: the renewal is the first charge.
    expect(
      included.find(
        (r) =>
          r.type === 'subscription-invoices' &&
          r.attributes.billing_reason === 'initial',
      )?.attributes.total,
    ).toBe(0);
    // Spec 2.11: a number, like an order's rate (the reference sends a string).
    for (const invoice of included.filter(
      (r) => r.type === 'subscription-invoices',
    ))
      expect(invoice.attributes.currency_rate).toBe(1);
    const nested = await api()
      .get(`/v1/subscriptions/${subscription.id}/subscription-invoices`)
      .expect(200);
    expect(nested.body.meta.page.total).toBe(2);
    const listed = await listSubscriptions({
      filter: { storeId, status: 'active' },
    });
    expect(listed.data!.data.map((x) => x.id)).toContain(subscription.id);
  });

  it('lets license keys follow the subscription end', async () => {
    setNow(at('2027-01-10T12:00:00Z'));
    // A variant created with license keys (PATCHing the default variant
    // would do too, but the catalog's variant update hangs on the embedded
    // single-connection database: it reads outside its transaction).
    const product = await createProduct(t.baseUrl, merchant.testKey, storeId);
    const variant = await createVariant(
      t.baseUrl,
      merchant.testKey,
      product.id,
      {
        has_license_keys: true,
        status: 'published',
      },
    );
    await createPrice(t.baseUrl, merchant.testKey, variant.id, {
      category: 'subscription',
      unit_price: 500,
      renewal_interval_unit: 'month',
      renewal_interval_quantity: 1,
    });
    const purchase = await buy(
      t.baseUrl,
      await buyNowUrl(t.baseUrl, merchant.testKey, product.id),
      { variant_id: variant.id },
    ).expect(201);
    const orderId = purchase.body.data.id as string;
    const subscriptionId = (
      await api().get(`/v1/subscriptions?filter[order_id]=${orderId}`)
    ).body.data[0].id as string;
    const keyExpiry = async () =>
      (await api().get(`/v1/license-keys?filter[order_id]=${orderId}`)).body
        .data[0].attributes.expires_at as string | null;
    expect(await keyExpiry()).toBeNull();
    await cancelSubscription(subscriptionId);
    expect(await keyExpiry()).toBe('2027-02-10T12:00:00.000000Z');
    await updateSubscription(subscriptionId, { cancelled: false });
    expect(await keyExpiry()).toBeNull();
  });

  it('runs a sweep from the CLI as of an instant', async () => {
    if (!t.config.database.url) return; // the embedded database belongs to the test process
    setNow(at('2027-01-10T12:00:00Z'));
    const { subscription } = await buySubscription(
      t.baseUrl,
      merchant.testKey,
      storeId,
      {
        unit_price: 700,
        renewal_interval_unit: 'week',
      },
    );
    const run = promisify(execFile);
    const args = [
      'dist/cli.js',
      'billing:renew',
      '--as-of',
      '2027-01-17T12:00:00Z',
      '--json',
    ];
    const env = {
      ...process.env,
      DATABASE_URL: t.config.database.url,
      APP_KEY: t.config.appKey,
      LOG_LEVEL: 'silent',
    };
    const first = await run('node', args, { env });
    expect(JSON.parse(first.stdout)).toMatchObject({
      as_of: '2027-01-17T12:00:00.000000Z',
    });
    await run('node', args, { env });
    const { data } = await listSubscriptionInvoices({
      filter: { subscriptionId: subscription.id },
    });
    expect(data!.data.map((i) => i.attributes.billing_reason)).toEqual([
      'renewal',
      'initial',
    ]);
  });
});
