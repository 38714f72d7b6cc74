import {
  generateSubscriptionInvoice,
  issueSubscriptionInvoiceRefund,
  listSubscriptionInvoices,
  updateSubscriptionItem,
} from '@lemonsqueezy/lemonsqueezy.js';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { RenewalService } from '../../src/modules/billing/renewal.service';
import { InvoiceService } from '../../src/modules/invoice/invoice.service';
import { buySubscription, freezeClock } from '../support/billing';
import { createMerchant, Merchant } from '../support/factories';
import { pdfToText, pollInvoice } from '../support/invoices';
import { useSdkAgainst } from '../support/sdk';
import { startTestApp, TestApp } from '../support/test-app';
import { startTestWorker, TestWorker } from '../support/worker';

type InvoiceAttributes = Record<string, unknown> & {
  id: string;
  billing_reason: string;
  status: string;
  urls: { invoice_url: string | null };
};

const at = (iso: string) => new Date(iso);
const usd = (cents: number) =>
  new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(
    cents / 100,
  );

/** Path and query of a link, for supertest. */
const local = (link: string) => {
  const url = new URL(link);
  return url.pathname + url.search;
};

/** Collapses pdftotext's layout spacing, so a table row reads as one line of words. */
const squeeze = (text: string) => text.replace(/[ \t\u00a0]+/g, ' ');

// The worker renders (its own context against PostgreSQL + Redis, the app
// itself when embedded); its clock is not frozen, and need not be: a PDF is a
// function of the invoice record alone.
describe('subscription invoice PDFs', () => {
  let t: TestApp;
  let worker: TestWorker;
  let merchant: Merchant;
  let other: Merchant;
  let subscriptionId: string;
  let itemId: string;
  let restoreFetch: () => void;

  beforeAll(async () => {
    t = await startTestApp({ TAX_RATES: '{"GB":{"name":"VAT","rate":20}}' });
    worker = await startTestWorker(t);
    merchant = await createMerchant(t.app, ['Seat Shop']);
    other = await createMerchant(t.app, ['Elsewhere']);
    freezeClock(t.app, at('2027-01-10T12:00:00Z'));
    restoreFetch = useSdkAgainst(t.baseUrl, merchant.testKey);
    // Two seats at $10.00 a month plus a $5.00 setup fee, 20% VAT on top.
    const bought = await buySubscription(
      t.baseUrl,
      merchant.testKey,
      merchant.stores[0].id,
      { unit_price: 1000, setup_fee_enabled: true, setup_fee: 500 },
      {
        quantity: 2,
        name: 'Bea Buyer',
        email: 'bea@example.com',
        billing_address: { country: 'GB', zip: 'SW1A 1AA' },
      },
      { name: 'Team Plan' },
    );
    subscriptionId = bought.subscription.id;
    itemId = String(
      (bought.subscription.attributes.first_subscription_item as { id: number })
        .id,
    );
  });
  afterAll(async () => {
    restoreFetch();
    await worker.close();
    await t.close();
  });

  const invoices = async (): Promise<InvoiceAttributes[]> => {
    const { data, error } = await listSubscriptionInvoices({
      filter: { subscriptionId },
      page: { size: 100 },
    });
    expect(error).toBeNull();
    return data!.data.map(
      (i) =>
        ({
          id: i.id,
          ...(i.attributes as unknown as Record<string, unknown>),
        }) as InvoiceAttributes,
    );
  };
  const invoiceOf = async (reason: string, status?: string) => {
    const found = (await invoices()).find(
      (i) => i.billing_reason === reason && (!status || i.status === status),
    );
    if (!found) throw new Error(`no ${reason} invoice`);
    return found;
  };
  const generate = (id: string, key = merchant.testKey) =>
    request(t.baseUrl)
      .post(`/v1/subscription-invoices/${id}/generate-invoice`)
      .set('Authorization', `Bearer ${key}`)
      .set('Accept', 'application/vnd.api+json');
  const pdfText = async (link: string) =>
    squeeze(pdfToText((await pollInvoice(link)).pdf));

  it('serves the initial invoice at urls.invoice_url: 202 while it renders, then the PDF with its figures', async () => {
    const initial = await invoiceOf('initial');
    expect(initial).toMatchObject({
      status: 'paid',
      subtotal: 2500,
      tax: 500,
      total: 3000,
    });
    const link = initial.urls.invoice_url!;
    expect(link).toMatch(
      new RegExp(
        `^${t.baseUrl}/invoices/subscription-invoices/${initial.id}\\?signature=[0-9a-f]{64}$`,
      ),
    );
    // Nothing has asked for this PDF yet: the first request queues it.
    const first = await request(t.baseUrl).get(local(link));
    expect(first.status).toBe(202);
    expect(first.headers['retry-after']).toBe('2');
    const text = await pdfText(link);
    for (const expected of [
      'Seat Shop',
      // One sale, one invoice: the initial invoice carries its order's number.
      'Invoice no. TEST-2027-000001',
      `Subscription invoice #${initial.id}`,
      'Status: Paid',
      'Period: Jan 10 – Feb 10, 2027',
      'Test mode',
      'Bea Buyer',
      'bea@example.com',
      'United Kingdom',
      'Team Plan 2 $10.00 $20.00',
      'Setup fee 1 $5.00 $5.00',
      'Subtotal $25.00',
      'VAT (20.00%) $5.00',
      'Total (USD) $30.00',
      'Amount paid $30.00',
    ]) {
      expect(text).toContain(expected);
    }
    // The same link, reused: the stored file, at once.
    expect((await pollInvoice(link)).statuses).toEqual([200]);
  });

  it('generates through the SDK a download_invoice link with the bill-to fields', async () => {
    const initial = await invoiceOf('initial');
    const { statusCode, data, error } = await generateSubscriptionInvoice(
      initial.id,
      {
        name: 'Beatrice Buyer Ltd',
        address: '10 Downing Street',
        city: 'London',
        zipCode: 'SW1A 2AA' as unknown as number,
        country: 'GB',
        notes: 'PO 2027-01',
      },
    );
    expect(error).toBeNull();
    expect(statusCode).toBe(200);
    expect(Object.keys(data!)).toEqual(['jsonapi', 'meta']);
    const link = (data!.meta as { urls: { download_invoice: string } }).urls
      .download_invoice;
    expect(
      link.startsWith(
        `${t.baseUrl}/invoices/subscription-invoices/${initial.id}?`,
      ),
    ).toBe(true);
    // The details are stored; the link names them by token only.
    const params = new URL(link).searchParams;
    expect([...params.keys()]).toEqual([
      'bill_to',
      'owner',
      'mode',
      'signature',
    ]);
    expect(params.get('mode')).toBe('test');
    // Whole values, decoded: a random token may well contain "PO" or "SW1A".
    const decoded = decodeURIComponent(link.replace(/\+/g, ' '));
    for (const detail of [
      'Beatrice Buyer Ltd',
      '10 Downing Street',
      'London',
      'SW1A 2AA',
      'PO 2027-01',
    ]) {
      expect(decoded).not.toContain(detail);
    }
    const text = await pdfText(link);
    for (const expected of [
      'Beatrice Buyer Ltd',
      '10 Downing Street',
      // A British address: the town, then the postcode on its own line.
      'London\nSW1A 2AA',
      'United Kingdom',
      'PO 2027-01',
      'Team Plan 2 $10.00 $20.00',
      'Total (USD) $30.00',
    ]) {
      expect(text).toContain(expected);
    }
  });

  it('refuses tampered links with 403', async () => {
    const initial = await invoiceOf('initial');
    const link = new URL(initial.urls.invoice_url!);
    const { data } = await generateSubscriptionInvoice(initial.id, {
      name: 'Real',
    });
    const generated = new URL(
      (data!.meta as { urls: { download_invoice: string } }).urls
        .download_invoice,
    );
    const flip = (search: string) =>
      search.replace(
        /signature=([0-9a-f])/,
        (_, c: string) => `signature=${c === '0' ? '1' : '0'}`,
      );
    for (const path of [
      link.pathname + flip(link.search),
      link.pathname.replace(/\/\d+$/, `/${Number(initial.id) + 1}`) +
        link.search,
      link.pathname,
      generated.pathname + generated.search.replace(/bill_to=[^&]+&/, ''),
      `${generated.pathname}${generated.search}&name=Fake`,
      // An owner added to the unscoped link, or taken off a scoped one.
      `${link.pathname}${link.search}&owner=${other.userId}&mode=test`,
      generated.pathname + generated.search.replace(/owner=\d+&mode=test&/, ''),
    ]) {
      const response = await request(t.baseUrl).get(path).expect(403);
      expect(response.body.errors[0]).toMatchObject({ status: '403' });
    }
  });

  it("answers 404 for another user's invoice, another mode or a missing one", async () => {
    const initial = await invoiceOf('initial');
    await generate(initial.id, other.testKey).expect(404);
    await generate(initial.id, merchant.liveKey).expect(404);
    await generate('999999').expect(404);
    await generate('abc').expect(404);
    // A link scoped to another user does not reach this invoice either.
    const foreign = t.app
      .get(InvoiceService)
      .link('subscription-invoices', Number(initial.id), {
        userId: other.userId,
        testMode: true,
      });
    await request(t.baseUrl).get(local(foreign)).expect(404);
    await generate(initial.id).expect(200);
  });

  it('prints each invoice as billed: prorations, carried changes and a renewal, while older invoices keep their lines', async () => {
    const freeze = freezeClock(t.app, at('2027-01-25T12:00:00Z'));
    const immediate = await updateSubscriptionItem(itemId, {
      quantity: 3,
      invoiceImmediately: true,
    });
    expect(immediate.error).toBeNull();
    await updateSubscriptionItem(itemId, { quantity: 4 }); // carried to the renewal
    const updated = await invoiceOf('updated');
    // (3 − 2 seats) × $10 × 16/31 days.
    expect(updated.subtotal).toBe(516);
    // Paid at once: the store's next invoice number after the first order's.
    expect(updated.invoice_number).toBe('TEST-2027-000002');
    let text = await pdfText(updated.urls.invoice_url!);
    expect(text).toContain(
      'Team Plan: quantity 2 to 3, prorated 1 $5.16 $5.16',
    );
    expect(text).toContain(`VAT (20.00%) ${String(updated.tax_formatted)}`);
    expect(text).toContain(`Total (USD) ${String(updated.total_formatted)}`);

    freeze(at('2027-02-10T12:00:00Z'));
    await t.app.get(RenewalService).sweep(at('2027-02-10T12:00:00Z'));
    const renewal = await invoiceOf('renewal');
    // (4 − 3 seats) × $10 × 16/31 days, owed since the quantity changed.
    const carried = (renewal.subtotal as number) - 4000;
    expect(carried).toBeGreaterThanOrEqual(515);
    expect(carried).toBeLessThanOrEqual(517);
    expect(renewal.status).toBe('paid');
    expect(renewal.invoice_number).toBe('TEST-2027-000003');
    text = await pdfText(renewal.urls.invoice_url!);
    for (const expected of [
      'Invoice no. TEST-2027-000003',
      'Period: Feb 10 – Mar 10, 2027',
      'Team Plan 4 $10.00 $40.00',
      `Prorated changes in the previous period 1 ${usd(carried)} ${usd(carried)}`,
      `Subtotal ${String(renewal.subtotal_formatted)}`,
      `VAT (20.00%) ${String(renewal.tax_formatted)}`,
      `Total (USD) ${String(renewal.total_formatted)}`,
    ]) {
      expect(text).toContain(expected);
    }

    // The initial invoice still shows the two seats it billed: same file.
    const initial = await invoiceOf('initial');
    const again = await pollInvoice(initial.urls.invoice_url!);
    expect(again.statuses).toEqual([200]);
    expect(squeeze(pdfToText(again.pdf))).toContain(
      'Team Plan 2 $10.00 $20.00',
    );
  });

  it('renders a refund on the same link, and serves no unscoped link while an invoice is pending', async () => {
    const initial = await invoiceOf('initial');
    const refund = await issueSubscriptionInvoiceRefund(initial.id, 1000);
    expect(refund.error).toBeNull();
    const refunded = await invoiceOf('initial');
    // A partial refund keeps the invoice paid; the PDF shows what went back.
    expect(refunded.status).toBe('paid');
    expect(refunded.refunded_amount).toBe(1000);
    expect(refunded.urls.invoice_url).toBe(initial.urls.invoice_url);
    // The record changed, so its PDF is a new one, rendered on request.
    const { statuses, pdf } = await pollInvoice(refunded.urls.invoice_url!);
    expect(statuses[0]).toBe(202);
    const text = squeeze(pdfToText(pdf));
    expect(text).toContain('Status: Paid');
    expect(text).toContain('Refunded -$10.00');

    // A declined renewal leaves a pending invoice: no invoice_url, yet the
    // merchant can still generate one showing the amount due.
    await t.app
      .get(DataSource)
      .query(
        `UPDATE subscriptions SET payment_method = 'pm_test_declined' WHERE id = $1`,
        [subscriptionId],
      );
    freezeClock(t.app, at('2027-03-10T12:00:00Z'));
    await t.app.get(RenewalService).sweep(at('2027-03-10T12:00:00Z'));
    const pending = await invoiceOf('renewal', 'pending');
    expect(pending.urls.invoice_url).toBeNull();
    const unscoped = t.app
      .get(InvoiceService)
      .link('subscription-invoices', Number(pending.id), null);
    await request(t.baseUrl).get(local(unscoped)).expect(404);
    const generated = await generate(pending.id).expect(200);
    const pendingText = await pdfText(
      generated.body.meta.urls.download_invoice as string,
    );
    expect(pendingText).toContain('Status: Pending');
    expect(pendingText).toContain('Team Plan 4 $10.00 $40.00');
    expect(pendingText).toContain(
      `Amount due ${String(pending.total_formatted)}`,
    );
  });
});
