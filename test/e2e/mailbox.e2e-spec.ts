import { Browser } from 'playwright-core';
import request from 'supertest';
import { launchChromium } from '../support/browser';
import { buy } from '../support/commerce';
import {
  createMerchant,
  createPrice,
  createProduct,
  createVariant,
  Merchant,
  postResource,
} from '../support/factories';
import { runCli } from '../support/processes';
import { uploadFile } from '../support/files';
import { startTestApp, TestApp, TEST_APP_KEY } from '../support/test-app';
import { startTestWorker, TestWorker } from '../support/worker';

async function waitFor<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`not done in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Without MAIL_URL (the embedded default) messages stay in the database and
 * are shown at /dev/mailbox and by the CLI: the quickstart's receipts.
 */
describe('the local mailbox (no MAIL_URL)', () => {
  let t: TestApp;
  let worker: TestWorker;
  let merchant: Merchant;
  let browser: Browser;
  let orderId: number;
  let licenseKey: string;

  beforeAll(async () => {
    t = await startTestApp({
      TAX_RATES: '{"US":{"name":"Sales tax","rate":8}}',
      MAIL_SWEEP_INTERVAL_MS: '300',
    });
    worker = await startTestWorker(t);
    merchant = await createMerchant(t.app, ['Pixel Foundry']);
    const storeId = merchant.stores[0].id;
    const key = merchant.testKey;
    const product = await createProduct(t.baseUrl, key, storeId, {
      name: 'Pixel Editor',
    });
    const variant = await createVariant(t.baseUrl, key, product.id, {
      name: 'Studio',
      status: 'published',
      has_license_keys: true,
      license_activation_limit: 2,
      is_license_limit_unlimited: false,
      license_length_value: 1,
      license_length_unit: 'years',
      is_license_length_unlimited: false,
    });
    await createPrice(t.baseUrl, key, variant.id, { unit_price: 7900 });
    // A file the variant delivers: the receipt links it.
    const uploaded = await uploadFile(t.baseUrl, key, {
      variantId: variant.id,
      file: new Blob([Buffer.alloc(3 * 1024 * 1024, 7)]),
      name: 'PixelEditor-Studio.dmg',
      attributes: {},
    });
    expect(uploaded.status).toBe(201);
    await postResource(
      t.baseUrl,
      key,
      'discounts',
      { name: 'Launch', code: 'LAUNCH10', amount: 10, amount_type: 'percent' },
      { store: { type: 'stores', id: storeId } },
    );
    const checkout = await postResource(
      t.baseUrl,
      key,
      'checkouts',
      {
        product_options: {
          receipt_thank_you_note:
            'Thanks for backing Pixel Foundry. Reply to this e-mail if anything is off.',
        },
      },
      {
        store: { type: 'stores', id: storeId },
        variant: { type: 'variants', id: variant.id },
      },
    );
    const purchase = await buy(t.baseUrl, String(checkout.attributes.url), {
      email: 'grace@example.com',
      name: 'Grace Hopper',
      discount_code: 'LAUNCH10',
    });
    expect(purchase.status).toBe(201);
    orderId = Number((purchase.body as { data: { id: string } }).data.id);
    // The receipt reaches the mailbox without anyone asking for it. How soon
    // is a budget for `npm run bench:mail`, not for a test on a busy machine.
    await waitFor(
      () => request(t.baseUrl).get('/dev/mailbox/1'),
      (response) => response.status === 200 && /sent/.test(response.text),
    );
    const keys = await request(t.baseUrl)
      .get(`/v1/license-keys?filter[order_id]=${orderId}`)
      .set('Authorization', `Bearer ${key}`)
      .expect(200);
    licenseKey = keys.body.data[0].attributes.key as string;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await worker?.close();
    await t?.close();
  });

  it('lists the receipt and shows its details, HTML part, text part and raw source', async () => {
    const list = await request(t.baseUrl).get('/dev/mailbox').expect(200);
    expect(list.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(list.text).toContain('grace@example.com');
    expect(list.text).toContain(
      '[Test mode] Your receipt from Pixel Foundry (order #1)',
    );

    const detail = await request(t.baseUrl).get('/dev/mailbox/1').expect(200);
    expect(detail.text).toContain('Kept in the local mailbox');
    expect(detail.text).toContain(`order_receipt:${orderId}`);

    const html = await request(t.baseUrl)
      .get('/dev/mailbox/1/html')
      .expect(200);
    expect(html.headers['content-security-policy']).toContain(
      "default-src 'none'",
    );
    expect(html.text).toContain(licenseKey);
    expect(html.text).toContain('Sales tax (8%)');
    expect(html.text).toContain('−$7.90');

    const text = await request(t.baseUrl)
      .get('/dev/mailbox/1/text')
      .expect(200);
    expect(text.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(text.text).toContain(licenseKey);
    expect(text.text).toContain('2 activations');
    // The variant's file, with a signed link that downloads it.
    const download = /PixelEditor-Studio\.dmg \([^)]+\)\n(http\S+)/.exec(
      text.text,
    );
    expect(download).not.toBeNull();
    const file = await fetch(download![1]);
    expect(file.status).toBe(200);
    expect((await file.arrayBuffer()).byteLength).toBe(3 * 1024 * 1024);

    const source = await request(t.baseUrl)
      .get('/dev/mailbox/1/source')
      .expect(200);
    expect(source.text).toMatch(/^Message-ID: <[^>]+>\r$/m);
    expect(source.text).toContain('To: grace@example.com');
    expect(source.text).toMatch(
      /^From: "?Pixel Foundry"? <no-reply@127\.0\.0\.1>\r$/m,
    );
    expect(source.text).toContain('Content-Type: multipart/alternative');

    await request(t.baseUrl).get('/dev/mailbox/999').expect(404);
    await request(t.baseUrl).get('/dev/mailbox/abc').expect(404);
  });

  it('renders the receipt in Chromium, fitting a phone screen and a desktop one', async () => {
    browser = await launchChromium();
    for (const [width, file] of [
      [375, '/tmp/zest-receipt-email-phone.png'],
      [900, '/tmp/zest-receipt-email.png'],
    ] as const) {
      const page = await browser.newPage({ viewport: { width, height: 800 } });
      await page.goto(`${t.baseUrl}/dev/mailbox/1/html`);
      expect(await page.getByText(licenseKey).isVisible()).toBe(true);
      // The item line and the license key's product.
      expect(await page.getByText('Pixel Editor – Studio').count()).toBe(2);
      // Responsive: nothing is wider than the screen.
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - window.innerWidth,
      );
      expect(overflow).toBeLessThanOrEqual(0);
      await page.screenshot({ path: file, fullPage: true });
      await page.close();
    }
  });

  const describeWithServer = process.env.DATABASE_URL ? it : it.skip;
  describeWithServer('lists and shows the messages with the CLI', async () => {
    const env = {
      DATABASE_URL: t.config.database.url!,
      APP_KEY: TEST_APP_KEY,
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
    };
    const list = await runCli(env, ['mail:list']);
    expect(list.messages).toEqual([
      expect.objectContaining({
        id: 1,
        kind: 'order_receipt',
        to: 'grace@example.com',
        status: 'sent',
        attempts: 1,
      }),
    ]);
    const shown = await runCli(env, ['mail:show', '1']);
    expect(shown.subject).toBe(
      '[Test mode] Your receipt from Pixel Foundry (order #1)',
    );
    expect(shown.text).toContain(licenseKey);
    const store = await runCli(env, [
      'stores:mail',
      '--store',
      String(merchant.stores[0].id),
      '--from',
      'Pixel Foundry <hello@pixelfoundry.test>',
    ]);
    expect(store.mail_from).toBe('Pixel Foundry <hello@pixelfoundry.test>');
    const off = await runCli(env, [
      'stores:mail',
      '--store',
      String(merchant.stores[0].id),
      '--disable',
      'order_receipt',
    ]);
    expect(off.mail_disabled_kinds).toEqual(['order_receipt']);
  });
});
