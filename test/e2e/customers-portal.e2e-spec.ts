import request from 'supertest';
import { DataSource } from 'typeorm';
import { SignedUrls } from '../../src/common/signed-urls.service';
import { Transactions } from '../../src/database/transactions';
import {
  CustomerActivity,
  CustomerActivitySource,
  CustomerRef,
} from '../../src/modules/customer/customer-activity';
import { CustomerService } from '../../src/modules/customer/customer.service';
import { createCustomer, createMerchant, Merchant } from '../support/factories';
import { startTestApp, TestApp } from '../support/test-app';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Stands in for the order, billing and licensing modules (not in this
 * branch): the customer module must combine whatever sources register.
 */
class FakeActivity implements CustomerActivitySource {
  subscribers = new Set<number>();

  figures(customers: CustomerRef[]) {
    return Promise.resolve(
      new Map(
        customers
          .filter((c) => this.subscribers.has(c.id))
          .map((c) => [
            c.id,
            { totalRevenueCurrency: 12345, mrr: 999, hasSubscription: true },
          ]),
      ),
    );
  }

  portal(customer: CustomerRef) {
    if (!this.subscribers.has(customer.id)) return Promise.resolve({});
    return Promise.resolve({
      orders: [
        {
          orderNumber: 1001,
          createdAt: new Date('2026-11-01T10:00:00Z'),
          productName: '<script>alert("order")</script>',
          status: 'paid',
          totalFormatted: '$123.45',
          receiptUrl: 'javascript:alert(1)',
          invoiceUrl: null,
        },
        {
          orderNumber: 1002,
          createdAt: new Date('2026-11-02T10:00:00Z'),
          productName: 'Second & last',
          status: 'paid',
          totalFormatted: '$1.00',
          receiptUrl: 'https://receipts.example.com/r?a=1&b="2"',
          invoiceUrl: null,
        },
      ],
      subscriptions: [
        {
          productName: 'Pro plan',
          variantName: 'Monthly',
          status: 'active',
          renewsAt: new Date('2026-12-01T00:00:00Z'),
          endsAt: null,
          priceFormatted: '$9.99 / month',
          terms: null,
          manageUrl: 'https://portal.example.com/s/1',
        },
      ],
      licenseKeys: [
        {
          key: 'ABCD-1234-<b>bold</b>',
          productName: 'Pro plan',
          status: 'active',
          activationUsage: 1,
          activationLimit: null,
          expiresAt: null,
          instances: [],
        },
      ],
    });
  }
}

/** A second source adds to the first: figures sum, lists concatenate. */
class SecondSource implements CustomerActivitySource {
  constructor(private readonly customerId: () => number) {}

  figures(customers: CustomerRef[]) {
    return Promise.resolve(
      new Map(
        customers
          .filter((c) => c.id === this.customerId())
          .map((c) => [c.id, { totalRevenueCurrency: 5 }]),
      ),
    );
  }
}

describe('customer portal and purchase customers', () => {
  let t: TestApp;
  let merchant: Merchant;
  const fake = new FakeActivity();
  let subscriberId = 0;

  beforeAll(async () => {
    t = await startTestApp();
    merchant = await createMerchant(t.app, ['Portal Store']);
    const activity = t.app.get(CustomerActivity);
    activity.register(fake);
    activity.register(new SecondSource(() => subscriberId));
  });
  afterAll(() => t.close());

  const get = (path: string, key = merchant.testKey) =>
    request(t.baseUrl)
      .get(path)
      .set('Authorization', `Bearer ${key}`)
      .set('Accept', 'application/vnd.api+json');

  async function portalUrl(customerId: number): Promise<string> {
    const response = await get(`/v1/customers/${customerId}`).expect(200);
    return response.body.data.attributes.urls.customer_portal as string;
  }

  const pathOf = (url: string) => {
    const parsed = new URL(url);
    return parsed.pathname + parsed.search;
  };

  it('gives a subscriber a 24-hour signed portal link and the sources’ figures', async () => {
    const customer = await createCustomer(t.app, merchant, undefined, {
      name: 'Sub <Scriber>',
      email: 'subscriber@example.com',
    });
    subscriberId = customer.id;
    fake.subscribers.add(customer.id);
    const before = Date.now();
    const response = await get(`/v1/customers/${customer.id}`).expect(200);
    const attributes = response.body.data.attributes;
    expect(attributes.total_revenue_currency).toBe(12350);
    expect(attributes.total_revenue_currency_formatted).toBe('$123.50');
    expect(attributes.mrr).toBe(999);
    expect(attributes.mrr_formatted).toBe('$9.99');
    const url = new URL(attributes.urls.customer_portal);
    expect(url.origin).toBe(t.baseUrl);
    expect(url.pathname).toBe(`/portal/customers/${customer.id}`);
    expect(url.searchParams.get('signature')).toMatch(/^[0-9a-f]{64}$/);
    const expires = Number(url.searchParams.get('expires')) * 1000;
    expect(expires).toBeGreaterThanOrEqual(before + DAY_MS);
    expect(expires).toBeLessThanOrEqual(Date.now() + DAY_MS + 1000);

    const listed = await get(
      '/v1/customers?filter[email]=subscriber@example.com',
    ).expect(200);
    expect(listed.body.data[0].attributes.urls.customer_portal).toMatch(
      /\/portal\/customers\/\d+\?expires=\d+&signature=[0-9a-f]{64}$/,
    );
  });

  it('has no portal link without a subscription', async () => {
    const customer = await createCustomer(t.app, merchant);
    expect(await portalUrl(customer.id)).toBeNull();
  });

  it('serves the portal page without an API key, escaping every value', async () => {
    const url = await portalUrl(subscriberId);
    const page = await request(t.baseUrl)
      .get(pathOf(url))
      .set('Accept', 'text/html')
      .expect(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['referrer-policy']).toBe('same-origin');
    const html = page.text;
    expect(html).toContain('Portal Store');
    expect(html).toContain('Sub &lt;Scriber&gt;');
    expect(html).toContain('#1001');
    expect(html).toContain(
      '&lt;script&gt;alert(&quot;order&quot;)&lt;/script&gt;',
    );
    expect(html).not.toContain('<script');
    expect(html).not.toContain('javascript:');
    expect(html).toContain('Second &amp; last');
    expect(html).toContain(
      'href="https://receipts.example.com/r?a=1&amp;b=&quot;2&quot;"',
    );
    expect(html).toContain('Pro plan');
    expect(html).toContain('$9.99 / month');
    expect(html).toContain('ABCD-1234-&lt;b&gt;bold&lt;/b&gt;');
    expect(html).toContain('1 / unlimited');
    // Through the API-key-free route only: an Authorization header changes nothing.
    await request(t.baseUrl)
      .get(pathOf(url))
      .set('Authorization', 'Bearer nonsense')
      .expect(200);
  });

  it('refuses a tampered, unsigned, foreign or expired link with 403', async () => {
    const url = await portalUrl(subscriberId);
    const path = pathOf(url);
    const other = await createCustomer(t.app, merchant);
    const tampered = [
      path.replace(`/customers/${subscriberId}`, `/customers/${other.id}`),
      path.replace(
        /expires=(\d+)/,
        (_, s: string) => `expires=${Number(s) + 60}`,
      ),
      path.replace(
        /signature=([0-9a-f])/,
        (_, c: string) => `signature=${c === 'a' ? 'b' : 'a'}`,
      ),
      `${path}&extra=1`,
      `/portal/customers/${subscriberId}`,
      path.replace(/signature=[0-9a-f]+/, 'signature=zz'),
    ];
    for (const bad of tampered) {
      const json = await request(t.baseUrl).get(bad);
      expect({ bad, status: json.status }).toEqual({ bad, status: 403 });
      expect(json.headers['content-type']).toMatch(
        /^application\/vnd\.api\+json/,
      );
      expect(json.body.errors[0]).toMatchObject({
        status: '403',
        title: 'Forbidden',
        detail: 'This link is invalid.',
      });
    }
    const html = await request(t.baseUrl)
      .get(tampered[0])
      .set('Accept', 'text/html,application/xhtml+xml')
      .expect(403);
    expect(html.headers['content-type']).toMatch(/^text\/html/);
    expect(html.text).toContain('This link is invalid.');

    const signer = t.app.get(SignedUrls);
    const expired = signer.sign(
      t.baseUrl,
      `/portal/customers/${subscriberId}`,
      {
        expiresAt: new Date(Date.now() - 1000),
      },
    );
    const response = await request(t.baseUrl).get(pathOf(expired)).expect(403);
    expect(response.body.errors[0].detail).toMatch(/expired/);

    const wrongKey = new URL(url);
    const forged = `/portal/customers/${subscriberId}?expires=${wrongKey.searchParams.get('expires')}&signature=${'0'.repeat(64)}`;
    await request(t.baseUrl).get(forged).expect(403);

    // A valid signature for a customer that does not exist: 404, not a crash.
    const ghost = signer.sign(t.baseUrl, '/portal/customers/999999', {
      expiresAt: new Date(Date.now() + 60_000),
    });
    await request(t.baseUrl).get(pathOf(ghost)).expect(404);

    // A request no handler takes (another method) gets the page's format too.
    const wrongMethod = await request(t.baseUrl)
      .delete(pathOf(ghost))
      .set('Accept', 'text/html')
      .expect(405);
    expect(wrongMethod.headers['content-type']).toMatch(/^text\/html/);
    expect(wrongMethod.headers.allow).toBe('GET');
    expect(wrongMethod.text).toContain('DELETE is not allowed here.');
    const machine = await request(t.baseUrl).delete(pathOf(ghost)).expect(405);
    expect(machine.body.errors[0].detail).toBe(
      'DELETE is not allowed here. Allowed: GET.',
    );
  });

  describe('findOrCreateForPurchase', () => {
    const count = async (email: string) => {
      const rows: { n: string }[] = await t.app
        .get(DataSource)
        .query(
          'SELECT count(*) AS n FROM customers WHERE lower(email) = lower($1)',
          [email],
        );
      return Number(rows[0].n);
    };

    it('creates one customer for parallel purchases by one address', async () => {
      const transactions = t.app.get(Transactions);
      const customers = t.app.get(CustomerService);
      const storeId = merchant.stores[0].id;
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          transactions.run((manager) =>
            customers.findOrCreateForPurchase(manager, {
              storeId,
              testMode: true,
              email: i % 2 === 0 ? 'Buyer@Example.com' : 'buyer@example.COM',
              name: `Buyer ${i}`,
              country: 'FR',
            }),
          ),
        ),
      );
      expect(new Set(results.map((c) => c.id)).size).toBe(1);
      expect(await count('buyer@example.com')).toBe(1);
      expect(results[0]).toMatchObject({
        storeId,
        testMode: true,
        status: 'subscribed',
        country: 'FR',
      });

      // Live mode is another customer; an API-created one is found, not duplicated.
      const live = await transactions.run((manager) =>
        customers.findOrCreateForPurchase(manager, {
          storeId,
          testMode: false,
          email: 'buyer@example.com',
          name: 'Live Buyer',
        }),
      );
      expect(live.id).not.toBe(results[0].id);
      const existing = await createCustomer(t.app, merchant, undefined, {
        email: 'known@example.com',
        name: 'Known',
      });
      const found = await transactions.run((manager) =>
        customers.findOrCreateForPurchase(manager, {
          storeId,
          testMode: true,
          email: 'KNOWN@example.com',
          name: 'Someone Else',
        }),
      );
      expect(found.id).toBe(existing.id);
      expect(found.name).toBe('Known');
    });

    it('leaves nothing behind when the purchase transaction rolls back', async () => {
      const transactions = t.app.get(Transactions);
      const customers = t.app.get(CustomerService);
      await expect(
        transactions.run(async (manager) => {
          await customers.findOrCreateForPurchase(manager, {
            storeId: merchant.stores[0].id,
            testMode: true,
            email: 'rolled-back@example.com',
            name: 'Gone',
          });
          throw new Error('payment declined');
        }),
      ).rejects.toThrow('payment declined');
      expect(await count('rolled-back@example.com')).toBe(0);
    });

    it('refuses an invalid address or country', async () => {
      const customers = t.app.get(CustomerService);
      const transactions = t.app.get(Transactions);
      for (const input of [
        { email: 'nope', country: 'FR' },
        { email: 'ok@example.com', country: 'fr' },
      ]) {
        await expect(
          transactions.run((manager) =>
            customers.findOrCreateForPurchase(manager, {
              storeId: merchant.stores[0].id,
              testMode: true,
              name: 'X',
              ...input,
            }),
          ),
        ).rejects.toMatchObject({ status: 422 });
      }
      expect(await count('ok@example.com')).toBe(0);
    });
  });
});
