import request from 'supertest';
import { buySubscription, freezeClock, outboxEvents } from '../support/billing';
import { pathOf } from '../support/commerce';
import { createMerchant, Merchant } from '../support/factories';
import { startTestApp, TestApp } from '../support/test-app';
import { RenewalService } from '../../src/modules/billing/renewal.service';

type Attributes = Record<string, unknown>;

const at = (iso: string) => new Date(iso);

const unescape = (html: string) =>
  html
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');

const textOf = (html: string) =>
  unescape(html.replace(/<[^>]+>/g, ' ')).replace(/\s+/g, ' ');

const BERLIN = {
  address_line_1: 'Invalidenstraße 117',
  address_line_2: '3rd floor',
  city: 'Berlin',
  region: '',
  zip: '10115',
  country: 'DE',
  tax_number: '',
};

describe('customer portal: billing address and tax number', () => {
  let t: TestApp;
  let merchant: Merchant;
  let storeId: number;

  beforeAll(async () => {
    t = await startTestApp();
    merchant = await createMerchant(t.app);
    storeId = merchant.stores[0].id;
    freezeClock(t.app, at('2027-01-10T12:00:00Z'));
  });
  afterAll(() => t.close());

  const api = (method: 'get' | 'patch', path: string, body?: object) =>
    request(t.baseUrl)
      [method](path)
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .set('Accept', 'application/vnd.api+json')
      .set('Content-Type', 'application/vnd.api+json')
      .send(body);

  const patchCustomer = (id: string, attributes: Attributes) =>
    api('patch', `/v1/customers/${id}`, {
      data: { type: 'customers', id, attributes },
    });

  /** A $12.00 monthly subscriber billed in New York, with the portal's billing form. */
  async function subscriber(email: string) {
    const bought = await buySubscription(
      t.baseUrl,
      merchant.testKey,
      storeId,
      { unit_price: 1200 },
      { email, name: 'Ada Lovelace' },
    );
    const attributes = bought.subscription.attributes;
    const customerId = String(attributes.customer_id);
    const portalPath = pathOf(
      (attributes.urls as Attributes).customer_portal as string,
    );
    const page = async () =>
      (await request(t.baseUrl).get(portalPath).expect(200)).text;
    const action = async () => {
      const match =
        /<form method="post" action="([^"]+)" id="billing-form">/.exec(
          await page(),
        );
      if (!match) throw new Error('no billing form on the portal');
      return pathOf(unescape(match[1]));
    };
    return { subscriptionId: bought.subscription.id, customerId, page, action };
  }

  const submit = (action: string, form: Record<string, string>) =>
    request(t.baseUrl).post(action).type('form').send(form);

  it('saves the address from the portal as the API does, with the same events, and the next renewal is taxed by it', async () => {
    const viaPortal = await subscriber('portal-buyer@example.com');
    const viaApi = await subscriber('api-buyer@example.com');
    const before = await outboxEvents(t.app, storeId);

    const saved = await submit(await viaPortal.action(), BERLIN);
    expect(saved.status).toBe(200);
    expect(textOf(saved.text)).toContain('Your billing details were saved.');
    // The form shows what was saved.
    expect(saved.text).toContain('value="Invalidenstraße 117"');
    expect(saved.text).toContain('value="10115"');

    await patchCustomer(viaApi.customerId, {
      address: 'Invalidenstraße 117\n3rd floor',
      city: 'Berlin',
      region: null,
      zip: '10115',
      country: 'DE',
      tax_number: null,
    }).expect(200);

    for (const id of [viaPortal.customerId, viaApi.customerId]) {
      const customer = await api('get', `/v1/customers/${id}`).expect(200);
      expect(customer.body.data.attributes).toMatchObject({
        address: 'Invalidenstraße 117\n3rd floor',
        city: 'Berlin',
        region: null,
        zip: '10115',
        country: 'DE',
        tax_number: null,
      });
    }

    // The same webhook events for both: the subscription re-taxed.
    const events = (await outboxEvents(t.app, storeId)).slice(before.length);
    const of = (id: string) =>
      events
        .filter((e) => e.type === 'subscriptions' && e.id === id)
        .map((e) => ({ name: e.name, status: e.attributes.status }));
    expect(of(viaPortal.subscriptionId)).toEqual([
      { name: 'subscription_updated', status: 'active' },
    ]);
    expect(of(viaApi.subscriptionId)).toEqual(of(viaPortal.subscriptionId));
    expect(events.map((e) => e.name)).toEqual([
      'subscription_updated',
      'subscription_updated',
    ]);

    // Saving the same details again changes nothing and sends nothing.
    await submit(await viaPortal.action(), BERLIN).expect(200);
    expect(await outboxEvents(t.app, storeId)).toHaveLength(before.length + 2);

    // The renewal invoices carry German VAT (19% of $12.00).
    await t.app.get(RenewalService).sweep(at('2027-02-10T12:00:01Z'));
    for (const id of [viaPortal.subscriptionId, viaApi.subscriptionId]) {
      const invoices = await api(
        'get',
        `/v1/subscription-invoices?filter[subscription_id]=${id}`,
      ).expect(200);
      const renewal = (invoices.body.data as { attributes: Attributes }[]).find(
        (i) => i.attributes.billing_reason === 'renewal',
      );
      expect(renewal?.attributes).toMatchObject({ subtotal: 1200, tax: 228 });
      // Bought in New York: the first invoice had other terms.
      const initial = (invoices.body.data as { attributes: Attributes }[]).find(
        (i) => i.attributes.billing_reason === 'initial',
      );
      expect(initial?.attributes.tax).not.toBe(228);
    }
  });

  it('validates as the API does: the country, the VAT number for it; a refusal is the page with its message', async () => {
    const s = await subscriber('checks@example.com');
    const action = await s.action();

    const badCountry = await submit(action, { ...BERLIN, country: 'XX' });
    expect(badCountry.status).toBe(422);
    expect(textOf(badCountry.text)).toContain(
      'The country must be an ISO 3166-1 alpha-2 code',
    );
    const badNumber = await submit(action, {
      ...BERLIN,
      tax_number: 'DE123',
    });
    expect(badNumber.status).toBe(422);
    expect(textOf(badNumber.text)).toContain(
      'The tax number is not a valid VAT number for DE.',
    );
    const viaApi = await patchCustomer(s.customerId, {
      country: 'DE',
      tax_number: 'DE123',
    }).expect(422);
    expect(viaApi.body.errors[0]).toMatchObject({
      code: 'invalid_tax_number',
      source: { pointer: '/data/attributes/tax_number' },
    });
    // Nothing was written by the refusals.
    const unchanged = await api('get', `/v1/customers/${s.customerId}`);
    expect(unchanged.body.data.attributes).toMatchObject({
      country: 'US',
      tax_number: null,
      zip: null,
    });

    // A valid number is kept as printed on invoices: no spaces or dots.
    await submit(action, { ...BERLIN, tax_number: 'de 136.695.976' }).expect(
      200,
    );
    const saved = await api('get', `/v1/customers/${s.customerId}`);
    expect(saved.body.data.attributes.tax_number).toBe('DE136695976');
  });

  it('refuses a cross-site post, a tampered link and another customer’s link', async () => {
    const s = await subscriber('csrf@example.com');
    const other = await subscriber('other@example.com');
    const action = await s.action();
    await request(t.baseUrl)
      .post(action)
      .set('Sec-Fetch-Site', 'cross-site')
      .type('form')
      .send(BERLIN)
      .expect(403);
    await request(t.baseUrl)
      .post(action)
      .set('Origin', 'https://evil.example')
      .type('form')
      .send(BERLIN)
      .expect(403);
    const tampered = action.replace(/signature=([0-9a-f])/, (_, c: string) =>
      c === '0' ? 'signature=1' : 'signature=0',
    );
    await submit(tampered, BERLIN).expect(403);
    // One customer's signed link does not reach another's record.
    const otherAction = (await other.action()).replace(
      `/portal/customers/${other.customerId}/`,
      `/portal/customers/${s.customerId}/`,
    );
    await submit(otherAction, BERLIN).expect(403);
    const unchanged = await api('get', `/v1/customers/${s.customerId}`);
    expect(unchanged.body.data.attributes.country).toBe('US');
  });
});
