import request from 'supertest';
import { DataSource } from 'typeorm';
import { RenewalService } from '../../src/modules/billing/renewal.service';
import { StripeTaxRecords } from '../../src/modules/tax/stripe-tax-records';
import { buyNowUrl } from '../support/commerce';
import { createMerchant, createPricedProduct } from '../support/factories';
import {
  confirmInBrowser,
  connectStripe,
  IntentAnswer,
  returnFromStripe,
  stripeKeys,
  stripePage,
  submitStripe,
} from '../support/stripe-checkout';
import { StripeDouble } from '../support/stripe-double/stripe-double';
import { startTestApp, TestApp } from '../support/test-app';

const KEYS = stripeKeys('TaxPlans');

/**
 * A subscription sold at a Stripe Tax store: its order's tax transaction is
 * the sale's, and a refund of the initial invoice (the same sale, the same
 * payment) reverses it at Stripe as an order refund would. A renewal is a
 * sale of its own: a fresh calculation, its own transaction and reversals.
 */
describe('Stripe Tax and a subscription’s initial invoice', () => {
  let double: StripeDouble;
  let t: TestApp;
  let key: string;
  let url: string;

  beforeAll(async () => {
    double = await new StripeDouble().start();
    t = await startTestApp({
      STRIPE_API_URL: `http://127.0.0.1:${double.port}`,
    });
    const merchant = await createMerchant(t.app, ['Abonnements']);
    key = merchant.testKey;
    const storeId = merchant.stores[0].id;
    const patch = (attributes: Record<string, unknown>) =>
      request(t.baseUrl)
        .patch(`/v1/stores/${storeId}`)
        .set('Authorization', `Bearer ${key}`)
        .set('Content-Type', 'application/vnd.api+json')
        .send(
          JSON.stringify({
            data: { type: 'stores', id: String(storeId), attributes },
          }),
        )
        .expect(200);
    await patch({ country: 'FR', currency: 'EUR' });
    await connectStripe(t.baseUrl, key, storeId, KEYS);
    double.taxSettings(KEYS.secret_key, 'FR', ['EU']);
    await patch({ tax_provider: 'stripe' });
    const { product } = await createPricedProduct(
      t.baseUrl,
      key,
      storeId,
      {
        category: 'subscription',
        renewal_interval_unit: 'month',
        renewal_interval_quantity: 1,
        unit_price: 1000,
      },
      { name: 'Fonts Monthly' },
    );
    url = await buyNowUrl(t.baseUrl, key, product.id);
  });
  afterAll(async () => {
    await t?.close();
    await double?.stop();
  });

  /** Buys the plan over the hosted page with a German address; the order's identifier. */
  async function subscribe(email: string): Promise<string> {
    const page = await stripePage(t.baseUrl, url);
    const submitted = await submitStripe(t.baseUrl, url, page.token, {
      email,
      'billing_address[country]': 'DE',
      'billing_address[zip]': '10115',
    });
    expect(submitted.status).toBe(200);
    const answer = submitted.body as IntentAnswer;
    await confirmInBrowser(
      double,
      KEYS.publishable_key,
      answer,
      '4242424242424242',
    );
    await returnFromStripe(t.baseUrl, answer).expect(303);
    return /\/my-orders\/([0-9a-f-]{36})\/return/.exec(answer.return_url)![1];
  }

  const refundInvoice = (id: string, amount: number) =>
    request(t.baseUrl)
      .post(`/v1/subscription-invoices/${id}/refund`)
      .set('Authorization', `Bearer ${key}`)
      .set('Content-Type', 'application/vnd.api+json')
      .send(
        JSON.stringify({
          data: { type: 'subscription-invoices', id, attributes: { amount } },
        }),
      )
      .expect(200);

  it('reverses the sale’s tax transaction when the initial invoice is refunded', async () => {
    const identifier = await subscribe('abonne@example.de');
    const db = t.app.get(DataSource);
    const [order] = (await db.query(
      `SELECT o.id, o.total, o.tax, i.id::text AS invoice_id
         FROM orders o
         JOIN subscriptions s ON s.order_id = o.id
         JOIN subscription_invoices i
           ON i.subscription_id = s.id AND i.billing_reason = 'initial'
        WHERE o.identifier = $1`,
      [identifier],
    )) as { id: number; total: number; tax: number; invoice_id: string }[];
    expect(order).toMatchObject({ total: 1190, tax: 190 });
    const records = t.app.get(StripeTaxRecords);
    await records.recordOpen();

    await refundInvoice(order.invoice_id, 595);
    await records.recordOpen();
    const rows = (await db.query(
      `SELECT kind, reference, refund_amount, stripe_id FROM stripe_tax_records
        WHERE order_id = $1 ORDER BY id`,
      [order.id],
    )) as {
      kind: string;
      reference: string;
      refund_amount: number | null;
      stripe_id: string | null;
    }[];
    expect(rows.map((r) => [r.kind, r.reference, r.refund_amount])).toEqual([
      ['transaction', identifier, null],
      ['reversal', `${identifier}-refund-1`, 595],
    ]);
    const reversal = double.find(KEYS.secret_key, rows[1].stripe_id!)!;
    expect(reversal).toMatchObject({
      type: 'reversal',
      reversal: { original_transaction: rows[0].stripe_id },
      reference: `${identifier}-refund-1`,
    });
  });

  it('prices a renewal by a fresh calculation and records its transaction and reversal once', async () => {
    const identifier = await subscribe('renouvellement@example.de');
    const db = t.app.get(DataSource);
    const [sub] = (await db.query(
      `SELECT s.id, s.renews_at, o.tax_rate::float AS order_rate
         FROM subscriptions s JOIN orders o ON o.id = s.order_id
        WHERE o.identifier = $1`,
      [identifier],
    )) as { id: number; renews_at: Date; order_rate: number }[];
    expect(sub.order_rate).toBe(19);
    // Germany's rate changes at Stripe after the purchase.
    double.changeTaxRates(KEYS.secret_key, {
      DE: [{ type: 'vat', percent: '16.0', state: null }],
    });
    const renewals = () =>
      db.query(
        `SELECT id::text, status, subtotal, tax, total, tax_rate::float AS tax_rate,
                tax_rate_source
           FROM subscription_invoices
          WHERE subscription_id = $1 AND billing_reason = 'renewal'`,
        [sub.id],
      ) as Promise<
        {
          id: string;
          status: string;
          subtotal: number;
          tax: number;
          total: number;
          tax_rate: number;
          tax_rate_source: string;
        }[]
      >;
    const asOf = new Date(new Date(sub.renews_at).getTime() + 60_000);
    const sweep = () => t.app.get(RenewalService).sweep(asOf);

    // Stripe Tax unreachable: as at checkout, nothing is written and no tax
    // guessed; the subscription stays due for the next sweep.
    // (Both subscriptions of the store are due: each asks once.)
    double.failRequests(2);
    await sweep();
    expect(await renewals()).toHaveLength(0);
    const none = (await db.query(
      `SELECT count(*)::int AS n FROM subscription_invoices WHERE billing_reason = 'renewal'`,
    )) as { n: number }[];
    expect(none[0].n).toBe(0);
    const [still] = (await db.query(
      `SELECT status, renews_at FROM subscriptions WHERE id = $1`,
      [sub.id],
    )) as { status: string; renews_at: Date }[];
    expect(still).toEqual({ status: 'active', renews_at: sub.renews_at });

    const calculationsBefore = double.list(
      KEYS.secret_key,
      'tax.calculation',
    ).length;
    const renewedBefore = (await db.query(
      `SELECT count(*)::int AS n FROM subscription_invoices WHERE billing_reason = 'renewal'`,
    )) as { n: number }[];
    await sweep();
    const renewedAfter = (await db.query(
      `SELECT count(*)::int AS n FROM subscription_invoices WHERE billing_reason = 'renewal'`,
    )) as { n: number }[];
    // One calculation per renewal made (every due subscription of the store renews).
    expect(
      double.list(KEYS.secret_key, 'tax.calculation').length -
        calculationsBefore,
    ).toBe(renewedAfter[0].n - renewedBefore[0].n);
    const [invoice] = await renewals();
    expect(invoice).toMatchObject({
      status: 'paid',
      subtotal: 1000,
      tax: 160,
      total: 1160,
      tax_rate: 16,
    });
    const calculationId = invoice.tax_rate_source.replace(/^stripe_tax:/, '');
    expect(double.find(KEYS.secret_key, calculationId)).toMatchObject({
      object: 'tax.calculation',
      tax_amount_exclusive: 160,
    });

    const records = t.app.get(StripeTaxRecords);
    await Promise.all([records.recordOpen(), records.recordOpen()]);
    await records.recordOpen();
    await refundInvoice(invoice.id, 580);
    await Promise.all([records.recordOpen(), records.recordOpen()]);
    await records.recordOpen();

    const reference = `${identifier}-invoice-${invoice.id}`;
    const rows = (await db.query(
      `SELECT kind, reference, calculation_id, refund_amount, stripe_id,
              order_id
         FROM stripe_tax_records
        WHERE subscription_invoice_id = $1 ORDER BY id`,
      [invoice.id],
    )) as {
      kind: string;
      reference: string;
      calculation_id: string | null;
      refund_amount: number | null;
      stripe_id: string;
      order_id: number | null;
    }[];
    expect(
      rows.map((r) => [r.kind, r.reference, r.calculation_id, r.refund_amount]),
    ).toEqual([
      ['transaction', reference, calculationId, null],
      ['reversal', `${reference}-refund-1`, null, 580],
    ]);
    expect(rows.every((r) => r.order_id === null && r.stripe_id)).toBe(true);
    const atStripe = double
      .list(KEYS.secret_key, 'tax.transaction')
      .filter((tx) => String(tx.reference).startsWith(reference));
    expect(atStripe).toHaveLength(2);
    expect(double.find(KEYS.secret_key, rows[0].stripe_id)).toMatchObject({
      type: 'transaction',
      reference,
    });
    expect(double.find(KEYS.secret_key, rows[1].stripe_id)).toMatchObject({
      type: 'reversal',
      reversal: { original_transaction: rows[0].stripe_id },
      reference: `${reference}-refund-1`,
    });
    // The order's own sale is untouched: no reversal of it for this refund.
    const orderRecords = (await db.query(
      `SELECT r.kind FROM stripe_tax_records r
         JOIN orders o ON o.id = r.order_id WHERE o.identifier = $1`,
      [identifier],
    )) as { kind: string }[];
    expect(orderRecords.map((r) => r.kind)).toEqual(['transaction']);
  });
});
