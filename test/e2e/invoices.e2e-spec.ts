import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { generateOrderInvoice } from '@lemonsqueezy/lemonsqueezy.js';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { Principal } from '../../src/common/principal';
import { SignedUrls } from '../../src/common/signed-urls.service';
import { Transactions } from '../../src/database/transactions';
import { CustomerService } from '../../src/modules/customer/customer.service';
import { InvoiceBillToService } from '../../src/modules/invoice/invoice-bill-to.service';
import { InvoiceSources } from '../../src/modules/invoice/invoice-source';
import { InvoiceData } from '../../src/modules/invoice/invoice-view';
import { InvoiceService } from '../../src/modules/invoice/invoice.service';
import { InvoicePdfJobs } from '../../src/modules/invoice/invoice.queue';
import { OrderService } from '../../src/modules/order/order.service';
import { OrderView } from '../../src/modules/order/order.repository';
import {
  createMerchant,
  createPricedProduct,
  Merchant,
} from '../support/factories';
import { pdfToText, pollInvoice as poll } from '../support/invoices';
import { useSdkAgainst } from '../support/sdk';
import { startTestApp, TestApp } from '../support/test-app';
import { startTestWorker, TestWorker } from '../support/worker';

interface OrderSpec {
  storeId: number;
  testMode: boolean;
  productId: number;
  variantId: number;
  priceId: number;
  productName: string;
}

/** A paid order written through the order service, as the purchase flow does. */
async function createOrder(t: TestApp, spec: OrderSpec): Promise<OrderView> {
  return t.app.get(Transactions).run(async (manager) => {
    const customer = await t.app
      .get(CustomerService)
      .findOrCreateForPurchase(manager, {
        storeId: spec.storeId,
        testMode: spec.testMode,
        email: 'ada@example.com',
        name: 'Ada Lovelace',
        country: 'GB',
      });
    const orders = t.app.get(OrderService);
    const { order } = await orders.createInTransaction(
      manager,
      {
        storeId: spec.storeId,
        customerId: customer.id,
        testMode: spec.testMode,
        userName: 'Ada Lovelace',
        userEmail: 'ada@example.com',
        currency: 'USD',
        currencyRate: 1,
        taxName: 'VAT',
        taxRate: 20,
        taxInclusive: false,
        status: 'paid',
        subtotal: 9998,
        discountTotal: 998,
        tax: 1800,
        setupFee: 0,
        total: 10800,
        subtotalUsd: 9998,
        discountTotalUsd: 998,
        taxUsd: 1800,
        setupFeeUsd: 0,
        totalUsd: 10800,
        billingCountry: 'GB',
        billingZip: null,
        taxNumber: null,
        checkoutId: null,
        customData: null,
        paymentReference: 'test_payment_1',
        failureReason: null,
      },
      [
        {
          productId: spec.productId,
          variantId: spec.variantId,
          priceId: spec.priceId,
          productName: spec.productName,
          variantName: 'Default',
          price: 4999,
          quantity: 2,
        },
      ],
      new Date(),
    );
    await orders.assignNumberAndCommit(manager, order);
    return order;
  });
}

// PDFs are rendered by the worker: a worker context of its own against
// PostgreSQL + Redis (sharing STORAGE_DIR), the app itself when embedded.
describe('invoices', () => {
  let t: TestApp;
  let worker: TestWorker;
  let merchant: Merchant;
  let other: Merchant;
  let order: OrderView;
  let liveOrder: OrderView;
  let productName: string;
  let restoreFetch: () => void;

  beforeAll(async () => {
    t = await startTestApp();
    worker = await startTestWorker(t);
    merchant = await createMerchant(t.app, ['Invoice Goods']);
    other = await createMerchant(t.app, ['Elsewhere']);
    const storeId = merchant.stores[0].id;
    const priced = await createPricedProduct(
      t.baseUrl,
      merchant.testKey,
      storeId,
      { unit_price: 4999 },
      { name: 'Pro Plan' },
    );
    productName = String(priced.product.attributes.name);
    const spec = {
      storeId,
      productId: Number(priced.product.id),
      variantId: Number(priced.variantId),
      priceId: Number(priced.priceId),
      productName,
    };
    order = await createOrder(t, { ...spec, testMode: true });
    liveOrder = await createOrder(t, { ...spec, testMode: false });
    restoreFetch = useSdkAgainst(t.baseUrl, merchant.testKey);
  });
  afterAll(async () => {
    restoreFetch();
    await worker.close();
    await t.close();
  });

  const post = (path: string, key = merchant.testKey) =>
    request(t.baseUrl)
      .post(path)
      .set('Authorization', `Bearer ${key}`)
      .set('Accept', 'application/vnd.api+json');

  const invoiceFiles = (id: number) => {
    const dir = join(t.config.storage.dir, 'invoices', 'orders', String(id));
    try {
      return readdirSync(dir).filter((name) => name.endsWith('.pdf'));
    } catch {
      return [];
    }
  };

  it('generates an order invoice through the SDK whose link serves the PDF with the figures and bill-to fields', async () => {
    const { statusCode, data, error } = await generateOrderInvoice(order.id, {
      name: 'Grace Hopper',
      address: '1 Navy Way',
      city: 'Arlington',
      state: 'VA',
      zipCode: 22202,
      country: 'US',
      notes: 'PO 4711',
    });
    expect(error).toBeNull();
    expect(statusCode).toBe(200);
    expect(Object.keys(data!)).toEqual(['jsonapi', 'meta']);
    expect(data!.jsonapi).toEqual({ version: '1.0' });
    const link = (data!.meta as { urls: { download_invoice: string } }).urls
      .download_invoice;
    expect(link.startsWith(`${t.baseUrl}/invoices/orders/${order.id}?`)).toBe(
      true,
    );
    // Unlike the live API's link, this one does not repeat the parameters:
    // the details are stored, and the link names them by an opaque token.
    const params = new URL(link).searchParams;
    expect([...params.keys()]).toEqual([
      'bill_to',
      'owner',
      'mode',
      'signature',
    ]);
    expect(params.get('bill_to')).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(params.get('signature')).toMatch(/^[0-9a-f]{64}$/);
    // Whole values, decoded: a random token or signature may well contain
    // "PO" or "22202".
    const decoded = decodeURIComponent(link.replace(/\+/g, ' '));
    for (const detail of [
      'Grace Hopper',
      '1 Navy Way',
      'Arlington',
      'zip=22202',
      'PO 4711',
    ]) {
      expect(decoded).not.toContain(detail);
    }

    const { statuses, pdf } = await poll(link);
    expect(statuses.at(-1)).toBe(200);
    const text = pdfToText(pdf);
    for (const expected of [
      'Invoice Goods',
      `Invoice #${order.orderNumber}`,
      'Status: Paid',
      'Test mode',
      'Grace Hopper',
      '1 Navy Way',
      'Arlington, VA 22202',
      'United States',
      'ada@example.com',
      productName,
      '$49.99',
      '$99.98',
      '-$9.98',
      'VAT (20.00%)',
      '$18.00',
      'Total (USD)',
      '$108.00',
      'PO 4711',
    ]) {
      expect(text).toContain(expected);
    }
  });

  it('answers 202 with Retry-After until the worker has rendered a link it never saw', async () => {
    const billTo = await t.app
      .get(InvoiceBillToService)
      .save(
        { storeId: merchant.stores[0].id, testMode: true },
        { notes: 'first request renders' },
      );
    const link = t.app
      .get(InvoiceService)
      .link(
        'orders',
        order.id,
        { userId: merchant.userId, testMode: true },
        billTo,
      );
    const url = new URL(link);
    const first = await request(t.baseUrl).get(url.pathname + url.search);
    expect(first.status).toBe(202);
    expect(first.headers['retry-after']).toBe('2');
    expect(first.headers['cache-control']).toBe('private, no-store');
    const { pdf } = await poll(link);
    const text = pdfToText(pdf);
    // Without a name field the bill-to falls back to the order's customer.
    expect(text).toContain('Ada Lovelace');
    expect(text).toContain('United Kingdom');
    expect(text).toContain('first request renders');
  });

  it('refuses a tampered or unsigned link with 403', async () => {
    const { data } = await generateOrderInvoice(order.id, { name: 'Real' });
    const link = new URL(
      (data!.meta as { urls: { download_invoice: string } }).urls
        .download_invoice,
    );
    const fake = await generateOrderInvoice(order.id, { name: 'Fake' });
    const fakeToken = new URL(
      (fake.data!.meta as { urls: { download_invoice: string } }).urls
        .download_invoice,
    ).searchParams.get('bill_to')!;
    const tampered = [
      // Another valid token of the same record: the signature covers it.
      link.pathname +
        link.search.replace(/bill_to=[^&]+/, `bill_to=${fakeToken}`),
      link.pathname + link.search.replace(/bill_to=[^&]+&/, ''),
      `${link.pathname}${link.search}&name=Fake`,
      link.pathname.replace(`/${order.id}`, `/${liveOrder.id}`) + link.search,
      link.pathname + link.search.replace('mode=test', 'mode=live'),
      link.pathname + link.search.replace(/signature=[0-9a-f]+/, ''),
      link.pathname +
        link.search.replace(
          /signature=([0-9a-f])/,
          (_, c: string) => `signature=${c === '0' ? '1' : '0'}`,
        ),
      `${link.pathname}${link.search}&notes=extra`,
    ];
    for (const path of tampered) {
      const response = await request(t.baseUrl).get(path).expect(403);
      expect(response.body.errors[0]).toMatchObject({
        status: '403',
        title: 'Forbidden',
      });
    }
  });

  it('reuses one link, one job and one file for repeated requests', async () => {
    const fields = { name: 'Repeat Customer', city: 'Oslo', country: 'NO' };
    const first = await generateOrderInvoice(order.id, fields);
    const link = (first.data!.meta as { urls: { download_invoice: string } })
      .urls.download_invoice;
    await poll(link);
    const before = invoiceFiles(order.id);
    const file = join(
      t.config.storage.dir,
      'invoices',
      'orders',
      String(order.id),
    );
    const mtimes = new Map(
      before.map((name) => [name, statSync(join(file, name)).mtimeMs]),
    );

    const again = await Promise.all(
      Array.from({ length: 5 }, () => generateOrderInvoice(order.id, fields)),
    );
    for (const repeat of again) {
      expect(
        (repeat.data!.meta as { urls: { download_invoice: string } }).urls
          .download_invoice,
      ).toBe(link);
    }
    const { statuses } = await poll(link);
    // The file exists, so no new job renders it again.
    expect(statuses).toEqual([200]);
    expect(invoiceFiles(order.id)).toEqual(before);
    for (const name of before) {
      expect(statSync(join(file, name)).mtimeMs).toBe(mtimes.get(name));
    }
  });

  it('stores identical details sent at once as one row, and nothing for a refused request', async () => {
    const db = t.app.get(DataSource);
    const rows = async () =>
      Number(
        (
          (await db.query(`SELECT count(*) AS n FROM invoice_bill_to`)) as {
            n: string;
          }[]
        )[0].n,
      );
    const before = await rows();
    const fields = {
      name: 'Parallel Buyer',
      address: '8 Race Road',
      notes: 'all at once',
    };
    const links = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const { data, error } = await generateOrderInvoice(order.id, fields);
        expect(error).toBeNull();
        return (data!.meta as { urls: { download_invoice: string } }).urls
          .download_invoice;
      }),
    );
    expect(new Set(links).size).toBe(1);
    expect(await rows()).toBe(before + 1);

    await post(
      `/v1/orders/${order.id}/generate-invoice?name=Refused`,
      other.testKey,
    ).expect(404);
    await post(`/v1/orders/999999/generate-invoice?name=Refused`).expect(404);
    await post(
      `/v1/orders/${order.id}/generate-invoice?name=Refused&locale=xx-invalid-!!`,
    ).expect(422);
    expect(await rows()).toBe(before + 1);
  });

  it('keeps stored details with the record’s store and mode', async () => {
    const query = '?name=Tenant+Check&city=Lyon';
    const tokenOf = (response: request.Response) =>
      new URL(
        (response.body as { meta: { urls: { download_invoice: string } } }).meta
          .urls.download_invoice,
      ).searchParams.get('bill_to')!;
    const testToken = tokenOf(
      await post(`/v1/orders/${order.id}/generate-invoice${query}`).expect(200),
    );
    const liveToken = tokenOf(
      await post(
        `/v1/orders/${liveOrder.id}/generate-invoice${query}`,
        merchant.liveKey,
      ).expect(200),
    );
    expect(liveToken).not.toBe(testToken);
    const stored = (await t.app
      .get(DataSource)
      .query(
        `SELECT token, store_id, test_mode, name, city FROM invoice_bill_to WHERE token = ANY($1) ORDER BY test_mode`,
        [[testToken, liveToken]],
      )) as Record<string, unknown>[];
    const storeId = merchant.stores[0].id;
    expect(stored).toEqual([
      {
        token: liveToken,
        store_id: storeId,
        test_mode: false,
        name: 'Tenant Check',
        city: 'Lyon',
      },
      {
        token: testToken,
        store_id: storeId,
        test_mode: true,
        name: 'Tenant Check',
        city: 'Lyon',
      },
    ]);
    const billTo = t.app.get(InvoiceBillToService);
    expect(await billTo.find({ storeId, testMode: true }, testToken)).toEqual({
      name: 'Tenant Check',
      city: 'Lyon',
    });
    expect(
      await billTo.find({ storeId, testMode: true }, liveToken),
    ).toBeNull();
    expect(
      await billTo.find(
        { storeId: other.stores[0].id, testMode: true },
        testToken,
      ),
    ).toBeNull();
    // Even a correctly signed link (only the server can make one) that pairs
    // a record with another mode's details finds nothing.
    const crossed = new URL(
      t.app
        .get(InvoiceService)
        .link(
          'orders',
          order.id,
          { userId: merchant.userId, testMode: true },
          liveToken,
        ),
    );
    await request(t.baseUrl)
      .get(crossed.pathname + crossed.search)
      .expect(404);
  });

  it('queues PDF jobs that name the details by token, never carrying them', async () => {
    const jobs = t.app.get(InvoicePdfJobs);
    const enqueue = jobs.enqueue.bind(jobs);
    const queued: unknown[] = [];
    jobs.enqueue = (job, hash) => {
      queued.push(job);
      return enqueue(job, hash);
    };
    try {
      const { data } = await generateOrderInvoice(order.id, {
        name: 'Queue Quiet',
        address: '5 Silent Street',
      });
      const link = (data!.meta as { urls: { download_invoice: string } }).urls
        .download_invoice;
      expect(queued).toEqual([
        {
          type: 'orders',
          id: order.id,
          scope: { userId: merchant.userId, testMode: true },
          billTo: new URL(link).searchParams.get('bill_to'),
        },
      ]);
      expect(pdfToText((await poll(link)).pdf)).toContain('5 Silent Street');
    } finally {
      jobs.enqueue = enqueue;
    }
  });

  it('keeps serving links issued before the details were stored (fields in the query)', async () => {
    // The old link shape: the fields, then owner and mode, signed.
    const old = t.app
      .get(SignedUrls)
      .sign(
        t.baseUrl,
        `/invoices/orders/${order.id}?name=Old+Link&city=Bergen&country=NO&owner=${merchant.userId}&mode=test`,
      );
    const { statuses, pdf } = await poll(old);
    expect(statuses[0]).toBe(202);
    const text = pdfToText(pdf);
    expect(text).toContain('Old Link');
    expect(text).toContain('Bergen');
    expect(text).toContain('Norway');
    const url = new URL(old);
    await request(t.baseUrl)
      .get(url.pathname + url.search.replace('Old+Link', 'New+Link'))
      .expect(403);
    // The same details through generate-invoice: a new-style link to the same file.
    const generated = await post(
      `/v1/orders/${order.id}/generate-invoice?name=Old+Link&city=Bergen&country=NO`,
    ).expect(200);
    const link = generated.body.meta.urls.download_invoice as string;
    expect(link).not.toContain('Bergen');
    expect((await poll(link)).statuses).toEqual([200]);
  });

  it('renders again when the stored file is gone', async () => {
    const { data } = await generateOrderInvoice(order.id, {
      name: 'Lost File',
    });
    const link = (data!.meta as { urls: { download_invoice: string } }).urls
      .download_invoice;
    await poll(link);
    const dir = join(
      t.config.storage.dir,
      'invoices',
      'orders',
      String(order.id),
    );
    for (const name of invoiceFiles(order.id)) rmSync(join(dir, name));
    const { statuses, pdf } = await poll(link);
    expect(statuses[0]).toBe(202);
    expect(pdfToText(pdf)).toContain('Lost File');
  });

  it('takes the fields from a JSON:API body too', async () => {
    const response = await post(`/v1/orders/${order.id}/generate-invoice`)
      .set('Content-Type', 'application/vnd.api+json')
      .send({
        data: {
          type: 'orders',
          attributes: {
            name: 'Body Name',
            country: 'FR',
            notes: 'Line 1\nLine 2',
          },
        },
      })
      .expect(200);
    expect(response.headers['content-type']).toMatch(
      /^application\/vnd\.api\+json/,
    );
    const link = response.body.meta.urls.download_invoice as string;
    expect(new URL(link).searchParams.has('name')).toBe(false);
    // The same details in the query string name the same stored row.
    const fromQuery = await post(
      `/v1/orders/${order.id}/generate-invoice?country=FR&name=Body+Name&notes=${encodeURIComponent('Line 1\nLine 2')}`,
    ).expect(200);
    expect(fromQuery.body.meta.urls.download_invoice).toBe(link);
    const text = pdfToText((await poll(link)).pdf);
    expect(text).toContain('Body Name');
    expect(text).toContain('France');
    expect(text).toContain('Line 1');
    expect(text).toContain('Line 2');
  });

  it('renders names in scripts the standard fonts lack without failing', async () => {
    const { data, error } = await generateOrderInvoice(order.id, {
      name: '李雷 Łukasz',
    });
    expect(error).toBeNull();
    const link = (data!.meta as { urls: { download_invoice: string } }).urls
      .download_invoice;
    expect(pdfToText((await poll(link)).pdf)).toContain('?? Lukasz');
  });

  it('serves a second source through the same routes, with scoped and unscoped links', async () => {
    const sample: InvoiceData = {
      storeId: merchant.stores[0].id,
      number: 'S-7',
      issuedAt: new Date('2026-11-01T00:00:00Z'),
      currency: 'EUR',
      status: 'paid',
      statusLabel: 'Paid',
      testMode: true,
      store: { name: 'Sample Co', lines: [] },
      customer: { name: 'Sam Ple', email: 'sam@example.com', country: null },
      lines: [
        {
          description: 'Monthly plan',
          quantity: 1,
          unitPrice: 1200,
          total: 1200,
        },
      ],
      subtotal: 1200,
      discountTotal: 0,
      tax: 0,
      total: 1200,
      taxName: null,
      taxRate: null,
      taxInclusive: false,
      refundedAmount: 0,
      refundedAt: null,
    };
    const source = {
      type: 'sample-invoices',
      load: (principal: Principal, id: number) =>
        Promise.resolve(
          id === 7 && principal.userId === merchant.userId && principal.testMode
            ? sample
            : null,
        ),
      loadLinked: (id: number) => Promise.resolve(id === 7 ? sample : null),
    };
    // The API answers generate-invoice and downloads; the worker renders.
    t.app.get(InvoiceSources).register(source);
    if (worker.context !== t.app) {
      worker.context.get(InvoiceSources).register(source);
    }
    const generated = await post(
      '/v1/sample-invoices/7/generate-invoice?name=Plug%20In',
    ).expect(200);
    const text = pdfToText(
      (await poll(generated.body.meta.urls.download_invoice as string)).pdf,
    );
    expect(text).toContain('Plug In');
    expect(text).toContain('Sample Co');
    expect(text).toContain('€12.00');
    await post('/v1/sample-invoices/8/generate-invoice').expect(404);
    await post('/v1/sample-invoices/7/generate-invoice', other.testKey).expect(
      404,
    );

    // What urls.invoice_url shows: no fields, no owner, rendered on first request.
    const invoices = t.app.get(InvoiceService);
    const unscoped = invoices.link('sample-invoices', 7, null);
    expect(unscoped).toMatch(
      new RegExp(
        `^${t.baseUrl}/invoices/sample-invoices/7\\?signature=[0-9a-f]{64}$`,
      ),
    );
    expect(pdfToText((await poll(unscoped)).pdf)).toContain('Sam Ple');
    // Orders serve scoped links only.
    const orderLink = new URL(invoices.link('orders', order.id, null));
    await request(t.baseUrl)
      .get(orderLink.pathname + orderLink.search)
      .expect(404);
  });

  it('answers 404 for a missing order or one in another mode or of another user', async () => {
    await post('/v1/orders/999999/generate-invoice').expect(404);
    await post('/v1/orders/abc/generate-invoice').expect(404);
    await post(`/v1/orders/${liveOrder.id}/generate-invoice`).expect(404);
    await post(`/v1/orders/${order.id}/generate-invoice`, other.testKey).expect(
      404,
    );
    await post(
      `/v1/orders/${liveOrder.id}/generate-invoice`,
      merchant.liveKey,
    ).expect(200);
    await post(`/v1/unknown-things/1/generate-invoice`).expect(404);
    await request(t.baseUrl)
      .post(`/v1/orders/${order.id}/generate-invoice`)
      .expect(401);
  });

  it('refuses fields over their limits with 422 and unknown parameters with 400', async () => {
    const long = await post(
      `/v1/orders/${order.id}/generate-invoice?name=${'x'.repeat(256)}`,
    ).expect(422);
    expect(long.body.errors[0]).toMatchObject({
      status: '422',
      title: 'Unprocessable Entity',
      detail: 'The name may be at most 255 characters.',
      source: { parameter: 'name' },
    });
    const notes = await post(`/v1/orders/${order.id}/generate-invoice`)
      .set('Content-Type', 'application/vnd.api+json')
      .send({
        data: { type: 'orders', attributes: { notes: 'n'.repeat(1001) } },
      })
      .expect(422);
    expect(notes.body.errors[0].source).toEqual({
      pointer: '/data/attributes/notes',
    });
    await post(`/v1/orders/${order.id}/generate-invoice`)
      .set('Content-Type', 'application/vnd.api+json')
      .send({ data: { type: 'orders', attributes: { name: 42 } } })
      .expect(422);
    const unknown = await post(
      `/v1/orders/${order.id}/generate-invoice?colour=red`,
    ).expect(400);
    expect(unknown.body.errors[0].source).toEqual({ parameter: 'colour' });
    await post(
      `/v1/orders/${order.id}/generate-invoice?locale=xx-invalid-!!`,
    ).expect(422);
  });
});
