import request from 'supertest';
import { DataSource } from 'typeorm';
import { SellerInvoices1795680000000 } from '../../src/database/migrations/1795680000000-seller-invoices';
import {
  formatInvoiceNumber,
  InvoiceNumbers,
} from '../../src/modules/store/invoice-numbers';
import { buy, buyNowUrl, pathOf } from '../support/commerce';
import {
  createMerchant,
  createPricedProduct,
  updateStore,
} from '../support/factories';
import { pdfToText, pollInvoice } from '../support/invoices';
import { runCli } from '../support/processes';
import { startSmtpServer, TestSmtpServer } from '../support/smtp';
import { startTestApp, TestApp, TEST_APP_KEY } from '../support/test-app';
import { startTestWorker, TestWorker } from '../support/worker';

interface OrderAttributes {
  order_number: number;
  invoice_number: string | null;
  tax: number;
  tax_note: string | null;
  urls: { receipt: string };
}

async function waitFor<T>(
  read: () => T | Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const REVERSE_CHARGE =
  'Reverse charge: VAT to be accounted for by the recipient (Article 196, Council Directive 2006/112/EC). Customer VAT number: DE136695976.';

/**
 * A French store with its legal identity sells a €10.00 e-service to a
 * German business (reverse charge) and a German consumer (19 % VAT): the
 * receipt page, the receipt e-mail and the invoice PDF name the seller with
 * its address and VAT number, carry the store's invoice number, and show
 * the buyer's VAT number and the reverse-charge wording on the B2B sale.
 */
describe('invoices a tax authority accepts', () => {
  let smtp: TestSmtpServer;
  let t: TestApp;
  let worker: TestWorker;
  let key: string;
  let storeId: number;
  let buyUrl: string;
  const year = new Date().getUTCFullYear();

  const patchStore = (id: number, attributes: Record<string, unknown>) =>
    updateStore(t.baseUrl, key, id, attributes);

  const readOrder = async (id: string) =>
    (
      await request(t.baseUrl)
        .get(`/v1/orders/${id}`)
        .set('Authorization', `Bearer ${key}`)
        .expect(200)
    ).body.data.attributes as OrderAttributes;

  async function invoiceText(orderId: string, query = ''): Promise<string> {
    const response = await request(t.baseUrl)
      .post(`/v1/orders/${orderId}/generate-invoice${query}`)
      .set('Authorization', `Bearer ${key}`)
      .set('Accept', 'application/vnd.api+json')
      .expect(200);
    const link = (
      response.body as { meta: { urls: { download_invoice: string } } }
    ).meta.urls.download_invoice;
    return pdfToText((await pollInvoice(link)).pdf);
  }

  const mailTo = (address: string) =>
    waitFor(
      () => smtp.received.find((mail) => mail.envelopeTo.includes(address)),
      (mail) => mail !== undefined,
    ).then((mail) => mail!.parsed);

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestApp({
      MAIL_URL: smtp.url,
      MAIL_FROM: 'Zest Mail <mail@zest.test>',
      MAIL_SWEEP_INTERVAL_MS: '300',
    });
    worker = await startTestWorker(t);
    const merchant = await createMerchant(t.app, [
      'Boutique Numérique',
      'Parallel Goods',
    ]);
    key = merchant.testKey;
    storeId = merchant.stores[0].id;
    await patchStore(storeId, { country: 'FR', currency: 'EUR' }).expect(200);
    const priced = await createPricedProduct(
      t.baseUrl,
      key,
      storeId,
      { unit_price: 1000 },
      { name: 'Font Licence' },
    );
    buyUrl = await buyNowUrl(t.baseUrl, key, priced.product.id);
  });
  afterAll(async () => {
    await worker?.close();
    await t?.close();
    await smtp?.stop();
  });

  it('keeps the legal name, address and VAT numbers on the store, checked', async () => {
    const set = await patchStore(storeId, {
      legal_name: 'Boutique Numérique SAS',
      legal_address: {
        lines: ['5 rue de Rivoli'],
        city: 'Paris',
        postcode: '75001',
        country: 'fr',
      },
      tax_numbers: { FR: 'FR 403 032 650 45', GB: 'GB980780684' },
    }).expect(200);
    expect(set.body.data.attributes).toMatchObject({
      legal_name: 'Boutique Numérique SAS',
      legal_address: {
        lines: ['5 rue de Rivoli'],
        city: 'Paris',
        state: null,
        postcode: '75001',
        country: 'FR',
      },
      tax_numbers: { FR: 'FR40303265045', GB: 'GB980780684' },
    });
    const shown = await request(t.baseUrl)
      .get(`/v1/stores/${storeId}`)
      .set('Authorization', `Bearer ${key}`)
      .expect(200);
    expect(shown.body.data.attributes.tax_numbers).toEqual({
      FR: 'FR40303265045',
      GB: 'GB980780684',
    });

    for (const [attributes, code] of [
      [{ tax_numbers: { FR: 'FR12345678901' } }, 'invalid_tax_number'],
      [{ tax_numbers: { XX: 'X1234' } }, 'invalid_tax_numbers'],
      [{ tax_numbers: ['FR40303265045'] }, 'invalid_tax_numbers'],
      [{ tax_numbers: { AU: '!' } }, 'invalid_tax_number'],
      [{ legal_address: { city: 'Paris' } }, 'invalid_legal_address'],
      [
        { legal_address: { country: 'FR', street: 'rue' } },
        'invalid_legal_address',
      ],
      [
        { legal_address: { country: 'FR', lines: 'rue' } },
        'invalid_legal_address',
      ],
    ] as const) {
      const refused = await patchStore(storeId, attributes).expect(422);
      expect(refused.body.errors[0]).toMatchObject({
        code,
        source: {
          pointer: `/data/attributes/${Object.keys(attributes)[0]}`,
        },
      });
    }
    // A refused change changes nothing.
    const after = await request(t.baseUrl)
      .get(`/v1/stores/${storeId}`)
      .set('Authorization', `Bearer ${key}`)
      .expect(200);
    expect(after.body.data.attributes.legal_address.city).toBe('Paris');
  });

  let business: OrderAttributes & { id: string };
  let consumer: OrderAttributes & { id: string };

  it('numbers each paid order with the store’s next invoice number', async () => {
    const b2b = await buy(t.baseUrl, buyUrl, {
      name: 'Einkauf GmbH',
      email: 'einkauf@firma.example.de',
      billing_address: { country: 'DE', zip: '80331' },
      tax_number: 'DE136695976',
    }).expect(201);
    const b2c = await buy(t.baseUrl, buyUrl, {
      name: 'Karl Konsument',
      email: 'karl@example.de',
      billing_address: { country: 'DE', zip: '10117' },
    }).expect(201);
    business = { id: b2b.body.data.id, ...(await readOrder(b2b.body.data.id)) };
    consumer = { id: b2c.body.data.id, ...(await readOrder(b2c.body.data.id)) };
    expect(business).toMatchObject({
      invoice_number: `TEST-${year}-000001`,
      tax: 0,
      tax_note: REVERSE_CHARGE,
    });
    expect(consumer).toMatchObject({
      invoice_number: `TEST-${year}-000002`,
      tax: 190,
    });
  });

  it('prints seller, numbers, the buyer’s VAT number and the wording on the invoice PDF', async () => {
    const text = await invoiceText(
      business.id,
      '?address=Marienplatz%208&city=M%C3%BCnchen&zip_code=80331&country=DE',
    );
    const flat = text.replace(/\s+/g, ' ');
    for (const expected of [
      'Boutique Numérique SAS',
      '5 rue de Rivoli',
      '75001 Paris',
      'France',
      'VAT number: FR40303265045',
      `Invoice no. TEST-${year}-000001`,
      `Order #${business.order_number}`,
      'Einkauf GmbH',
      'Marienplatz 8',
      '80331 München',
      'Germany',
      'VAT number: DE136695976',
      'Reverse charge: VAT to be accounted for by the recipient',
      'Customer VAT number: DE136695976.',
    ])
      expect(flat).toContain(expected);
    // The German address reads postcode then city, not "München, 80331".
    expect(flat).not.toContain('München, 80331');
    expect(flat).not.toContain('GB980780684');

    const consumerText = (await invoiceText(consumer.id)).replace(/\s+/g, ' ');
    for (const expected of [
      'Boutique Numérique SAS',
      'VAT number: FR40303265045',
      `Invoice no. TEST-${year}-000002`,
      'Karl Konsument',
      '10117',
      'Germany',
      'Net amount €10.00',
      'VAT (19.00%) €1.90',
      '€11.90',
    ])
      expect(consumerText).toContain(expected);
    expect(consumerText).not.toContain('Reverse charge');
    expect(consumerText).not.toContain('DE136695976');
  });

  it('shows them on the receipt page', async () => {
    const page = await request(t.baseUrl)
      .get(pathOf(business.urls.receipt))
      .expect(200);
    expect(page.text).toContain(
      `data-invoice-number>TEST-${year}-000001</strong>`,
    );
    expect(page.text).toContain(
      'data-seller>Boutique Numérique SAS<br>5 rue de Rivoli<br>75001 Paris<br>France<br>VAT number: FR40303265045',
    );
    expect(page.text).toContain(
      'data-buyer>Einkauf GmbH<br>VAT number: DE136695976',
    );
    expect(page.text).toContain('Reverse charge: VAT to be accounted for');
    const consumerPage = await request(t.baseUrl)
      .get(pathOf(consumer.urls.receipt))
      .expect(200);
    expect(consumerPage.text).toContain(`TEST-${year}-000002`);
    expect(consumerPage.text).toContain('VAT number: FR40303265045');
    expect(consumerPage.text).not.toContain('data-buyer');
    expect(consumerPage.text).not.toContain('Reverse charge');
  });

  it('shows them in the receipt e-mail', async () => {
    const mail = await mailTo('einkauf@firma.example.de');
    const text = mail.text ?? '';
    const html = String(mail.html);
    expect(text).toContain(
      'Sold by\nBoutique Numérique SAS\n5 rue de Rivoli\n75001 Paris\nFrance\nVAT number: FR40303265045',
    );
    expect(text).toContain('Bought by\nEinkauf GmbH\nVAT number: DE136695976');
    expect(text).toContain(`invoice no. TEST-${year}-000001`);
    expect(text).toContain(REVERSE_CHARGE);
    for (const expected of [
      'Boutique Numérique SAS',
      '75001 Paris',
      'VAT number: FR40303265045',
      'VAT number: DE136695976',
      `Invoice no. TEST-${year}-000001`,
    ])
      expect(html).toContain(expected);
    const consumerMail = await mailTo('karl@example.de');
    expect(consumerMail.text).toContain('VAT number: FR40303265045');
    expect(consumerMail.text).toContain(`TEST-${year}-000002`);
    expect(consumerMail.text).not.toContain('Bought by');
  });

  it('gives parallel purchases the numbers 1..N, no gap and no repeat', async () => {
    const parallelStore = (
      await request(t.baseUrl)
        .get('/v1/stores')
        .set('Authorization', `Bearer ${key}`)
        .expect(200)
    ).body.data.find(
      (store: { attributes: { name: string } }) =>
        store.attributes.name === 'Parallel Goods',
    ).id as string;
    const priced = await createPricedProduct(
      t.baseUrl,
      key,
      Number(parallelStore),
      { unit_price: 500 },
      { name: 'Sticker' },
    );
    const url = await buyNowUrl(t.baseUrl, key, priced.product.id);
    const n = 16;
    const responses = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        buy(t.baseUrl, url, { email: `parallel-${i}@example.com` }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(n).fill(201));
    const rows = (await t.app
      .get(DataSource)
      .query(
        `SELECT invoice_number FROM orders WHERE store_id = $1 ORDER BY invoice_number`,
        [Number(parallelStore)],
      )) as { invoice_number: string }[];
    expect(rows.map((row) => row.invoice_number)).toEqual(
      Array.from(
        { length: n },
        (_, i) => `TEST-${year}-${String(i + 1).padStart(6, '0')}`,
      ),
    );
    // The first store's sequence is its own.
    const first = await buy(t.baseUrl, buyUrl, {
      billing_address: { country: 'FR', zip: '75001' },
    }).expect(201);
    expect((await readOrder(first.body.data.id)).invoice_number).toBe(
      `TEST-${year}-000003`,
    );
  });

  it('gives a rolled-back sale’s number to the next one', async () => {
    const db = t.app.get(DataSource);
    const numbers = t.app.get(InvoiceNumbers);
    const merchant = await createMerchant(t.app, ['Rollback Goods']);
    const store = merchant.stores[0].id;
    // Unpaid copies of an order in the fresh store, to be numbered below.
    const ids: number[] = [];
    for (let i = 0; i < 10; i++) {
      const [row] = (await db.query(
        `INSERT INTO orders
         SELECT * FROM jsonb_populate_record(null::orders, (
           SELECT to_jsonb(o) || jsonb_build_object(
                    'id', nextval('orders_id_seq'),
                    'store_id', $1::integer,
                    'identifier', gen_random_uuid(),
                    'order_number', -1 - $2::integer,
                    'invoice_number', null)
             FROM orders o WHERE o.test_mode LIMIT 1))
         RETURNING id`,
        [store, i],
      )) as { id: number }[];
      ids.push(row.id);
    }
    const now = new Date();
    // In parallel; every third transaction fails after drawing its number.
    const outcomes = await Promise.allSettled(
      ids.map((id, i) =>
        db.transaction(async (manager) => {
          const number = await numbers.assign(
            manager,
            'orders',
            { id, storeId: store, testMode: true },
            now,
          );
          if (i % 3 === 0) throw new Error(`rolled back ${number}`);
        }),
      ),
    );
    const committed = outcomes.filter((o) => o.status === 'fulfilled').length;
    expect(committed).toBe(6);
    const rows = (await db.query(
      `SELECT invoice_number FROM orders WHERE store_id = $1 AND invoice_number IS NOT NULL
        ORDER BY invoice_number`,
      [store],
    )) as { invoice_number: string }[];
    expect(rows.map((row) => row.invoice_number)).toEqual(
      Array.from({ length: committed }, (_, i) =>
        formatInvoiceNumber(true, now.getUTCFullYear(), i + 1),
      ),
    );
  });

  const withServer = process.env.DATABASE_URL ? it : it.skip;
  withServer('shows and sets the seller identity with the CLI', async () => {
    const env = {
      DATABASE_URL: t.config.database.url!,
      APP_KEY: TEST_APP_KEY,
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
    };
    const set = await runCli(env, [
      'stores:legal',
      '--store',
      String(storeId),
      '--name',
      'Boutique Numérique SARL',
      '--street',
      '12 avenue des Champs-Élysées|Bâtiment B',
      '--postcode',
      '75008',
      '--tax-numbers',
      'FR:FR40303265045',
    ]);
    expect(set).toEqual({
      store_id: storeId,
      legal_name: 'Boutique Numérique SARL',
      legal_address: {
        lines: ['12 avenue des Champs-Élysées', 'Bâtiment B'],
        city: 'Paris',
        state: null,
        postcode: '75008',
        country: 'FR',
      },
      tax_numbers: { FR: 'FR40303265045' },
    });
    const cleared = await runCli(env, [
      'stores:legal',
      '--store',
      String(storeId),
      '--name',
      '',
      '--no-address',
      '--tax-numbers',
      '',
    ]);
    expect(cleared).toEqual({
      store_id: storeId,
      legal_name: null,
      legal_address: null,
      tax_numbers: null,
    });
  });

  it('numbers existing paid records in creation order when migrating', async () => {
    const db = t.app.get(DataSource);
    const before = (await db.query(
      `SELECT id, invoice_number FROM orders WHERE store_id = $1 AND invoice_number IS NOT NULL ORDER BY id`,
      [storeId],
    )) as { id: number; invoice_number: string }[];
    const runner = db.createQueryRunner();
    try {
      const migration = new SellerInvoices1795680000000();
      await migration.down(runner);
      await migration.up(runner);
    } finally {
      await runner.release();
    }
    const after = (await db.query(
      `SELECT id, invoice_number FROM orders WHERE store_id = $1 AND invoice_number IS NOT NULL ORDER BY id`,
      [storeId],
    )) as { id: number; invoice_number: string }[];
    expect(after).toEqual(before);
    const [counter] = (await db.query(
      `SELECT last_number FROM store_invoice_counters WHERE store_id = $1 AND test_mode AND year = $2`,
      [storeId, year],
    )) as { last_number: string }[];
    expect(Number(counter.last_number)).toBe(before.length);
  });
});
