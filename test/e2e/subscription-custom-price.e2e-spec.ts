import request from 'supertest';
import { RenewalService } from '../../src/modules/billing/renewal.service';
import { freezeClock } from '../support/billing';
import { buy, pathOf } from '../support/commerce';
import {
  createMerchant,
  createPrice,
  createProduct,
  createVariant,
  Merchant,
} from '../support/factories';
import { startTestApp, TestApp } from '../support/test-app';

const at = (iso: string) => new Date(iso);

/**
 * A subscription bought through a checkout with `custom_price` renews at
 * that price, as Lemon Squeezy does, not at the variant's; a plan change
 * moves it to the new plan's own price.
 */
describe('a checkout’s custom_price on renewals', () => {
  let t: TestApp;
  let merchant: Merchant;
  let storeId: number;
  let setNow: (instant: Date) => void;

  beforeAll(async () => {
    t = await startTestApp();
    merchant = await createMerchant(t.app);
    storeId = merchant.stores[0].id;
    setNow = freezeClock(t.app, at('2027-01-10T12:00:00Z'));
  });
  afterAll(async () => {
    await t?.close();
  });

  const api = () => ({
    get: (path: string) =>
      request(t.baseUrl)
        .get(path)
        .set('Authorization', `Bearer ${merchant.testKey}`)
        .set('Accept', 'application/vnd.api+json'),
    send: (method: 'post' | 'patch', path: string, body: unknown) =>
      request(t.baseUrl)
        [method](path)
        .set('Authorization', `Bearer ${merchant.testKey}`)
        .set('Content-Type', 'application/vnd.api+json')
        .send(body as object),
  });
  const sweep = (iso: string) => t.app.get(RenewalService).sweep(at(iso));
  const monthly = {
    category: 'subscription',
    renewal_interval_unit: 'month',
    renewal_interval_quantity: 1,
  };
  const invoicesOf = async (subscriptionId: string) =>
    (
      await api()
        .get(
          `/v1/subscription-invoices?filter[subscription_id]=${subscriptionId}`,
        )
        .expect(200)
    ).body.data.map(
      (i: { attributes: Record<string, unknown> }) => i.attributes,
    ) as Record<string, unknown>[];

  it('charges the custom price at each renewal, and the new plan’s after a change', async () => {
    // Two published plans (a product's default variant is not sold beside them).
    const product = await createProduct(t.baseUrl, merchant.testKey, storeId);
    const plan = async (name: string, unitPrice: number) => {
      const variant = await createVariant(
        t.baseUrl,
        merchant.testKey,
        product.id,
        { name, status: 'published' },
      );
      await createPrice(t.baseUrl, merchant.testKey, variant.id, {
        ...monthly,
        unit_price: unitPrice,
      });
      return variant.id;
    };
    const variantId = await plan('Pro', 1000);
    const other = { id: await plan('Team', 3000) };
    const checkout = await api().send('post', '/v1/checkouts', {
      data: {
        type: 'checkouts',
        attributes: { custom_price: 450 },
        relationships: {
          store: { data: { type: 'stores', id: String(storeId) } },
          variant: { data: { type: 'variants', id: variantId } },
        },
      },
    });
    expect([checkout.status, checkout.body.errors]).toEqual([201, undefined]);
    const bought = await buy(
      t.baseUrl,
      `${t.baseUrl}${pathOf(checkout.body.data.attributes.url)}`,
      { email: 'custom@example.com' },
    ).expect(201);
    expect(bought.body.data.attributes.subtotal).toBe(450);
    const subscriptionId = (
      await api()
        .get(`/v1/subscriptions?filter[order_id]=${bought.body.data.id}`)
        .expect(200)
    ).body.data[0].id as string;

    // Two renewals at the checkout's price, not the variant's 1000.
    for (const instant of ['2027-02-10T12:00:00Z', '2027-03-10T12:00:00Z']) {
      setNow(at(instant));
      await sweep(instant);
    }
    const renewals = (await invoicesOf(subscriptionId)).filter(
      (i) => i.billing_reason === 'renewal',
    );
    expect(renewals.map((i) => [i.status, i.subtotal])).toEqual([
      ['paid', 450],
      ['paid', 450],
    ]);

    // A plan change, without proration: the next renewal costs the new plan.
    await api()
      .send('patch', `/v1/subscriptions/${subscriptionId}`, {
        data: {
          type: 'subscriptions',
          id: subscriptionId,
          attributes: {
            variant_id: Number(other.id),
            disable_prorations: true,
          },
        },
      })
      .expect(200);
    setNow(at('2027-04-10T12:00:00Z'));
    await sweep('2027-04-10T12:00:00Z');
    const latest = (await invoicesOf(subscriptionId)).filter(
      (i) => i.billing_reason === 'renewal',
    );
    expect(latest.map((i) => Number(i.subtotal)).sort((a, b) => a - b)).toEqual(
      [450, 450, 3000],
    );
  });
});
