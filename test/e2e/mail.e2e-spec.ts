import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { Transactions } from '../../src/database/transactions';
import { MailOutbox } from '../../src/modules/mail/mail-outbox';
import { buy, pathOf } from '../support/commerce';
import {
  createMerchant,
  createPrice,
  createProduct,
  createVariant,
  Merchant,
  postResource,
  updateStore,
} from '../support/factories';
import { startSmtpServer, TestSmtpServer } from '../support/smtp';
import { startTestApp, TestApp } from '../support/test-app';
import { startTestWorker, TestWorker } from '../support/worker';

interface MessageRow {
  id: number;
  kind: string;
  cause_key: string;
  status: string;
  attempts: number;
  smtp_reply: string | null;
  message_id: string | null;
  to_address: string;
}

async function waitFor<T>(
  read: () => Promise<T> | T,
  done: (value: T) => boolean,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`not done in ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('transactional e-mail over a real SMTP server', () => {
  let smtp: TestSmtpServer;
  let t: TestApp;
  let worker: TestWorker;
  let merchant: Merchant;
  let storeId: number;
  let checkoutUrl: string;

  const messages = (where = '', parameters: unknown[] = []) =>
    t.app.get(DataSource).query(
      `SELECT id, kind, cause_key, status, attempts, smtp_reply, message_id, to_address
           FROM mail_messages ${where} ORDER BY id`,
      parameters,
    ) as Promise<MessageRow[]>;
  const messageOf = async (orderId: number) =>
    (await messages(`WHERE cause_key = $1`, [`order_receipt:${orderId}`]))[0];
  const receivedBy = (address: string) =>
    smtp.received.filter((mail) => mail.envelopeTo.includes(address));

  /** A licensed product sold through a checkout with receipt texts. */
  async function licensedCheckout(
    productOptions: Record<string, unknown>,
    checkoutOptions: Record<string, unknown> = {},
  ): Promise<string> {
    const key = merchant.testKey;
    const product = await createProduct(t.baseUrl, key, storeId, {
      name: 'Desktop App',
    });
    const variant = await createVariant(t.baseUrl, key, product.id, {
      name: 'Pro',
      status: 'published',
      has_license_keys: true,
      license_activation_limit: 3,
      is_license_limit_unlimited: false,
      license_length_value: 1,
      license_length_unit: 'years',
      is_license_length_unlimited: false,
    });
    await createPrice(t.baseUrl, key, variant.id, { unit_price: 4900 });
    const checkout = await postResource(
      t.baseUrl,
      key,
      'checkouts',
      {
        product_options: productOptions,
        checkout_options: checkoutOptions,
      },
      {
        store: { type: 'stores', id: storeId },
        variant: { type: 'variants', id: variant.id },
      },
    );
    return String(checkout.attributes.url);
  }

  async function purchase(email: string, url = checkoutUrl) {
    const response = await buy(t.baseUrl, url, { email, name: 'Ada Buyer' });
    expect(response.status).toBe(201);
    return Number((response.body as { data: { id: string } }).data.id);
  }

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestApp({
      MAIL_URL: smtp.url,
      MAIL_FROM: 'Zest Mail <mail@zest.test>',
      MAIL_RETRY_DELAYS: '300ms*20',
      MAIL_SWEEP_INTERVAL_MS: '300',
      MAIL_TIMEOUT_MS: '2000',
    });
    worker = await startTestWorker(t);
    merchant = await createMerchant(t.app, ['Mail Store']);
    storeId = merchant.stores[0].id;
    checkoutUrl = await licensedCheckout({
      receipt_thank_you_note: 'Thank you for supporting indie software!',
      receipt_button_text: 'Open your order',
    });
  }, 60_000);

  afterAll(async () => {
    await worker?.close();
    await t?.close();
    await smtp?.stop();
  });

  it('mails the receipt once: recipients, subject, both parts, the license key, the note, working signed links', async () => {
    const email = `ada-${randomUUID().slice(0, 8)}@example.com`;
    const orderId = await purchase(email);
    await waitFor(
      () => receivedBy(email),
      (mails) => mails.length === 1,
    );
    const [mail] = receivedBy(email);
    const { parsed } = mail;
    expect(mail.envelopeTo).toEqual([email]);
    expect(parsed.to).toMatchObject({ value: [{ address: email }] });
    expect(parsed.from?.value).toEqual([
      { address: 'mail@zest.test', name: 'Mail Store' },
    ]);
    expect(parsed.subject).toMatch(
      /^\[Test mode\] Your receipt from Mail Store \(order #\d+\)$/,
    );
    const html = String(parsed.html);
    const text = parsed.text ?? '';
    for (const part of [html, text]) {
      expect(part).toContain('Thank you for supporting indie software!');
      expect(part).toContain('$49.00');
      expect(part).toMatch(/test mode/i);
      expect(part).toContain('3 activations');
    }
    const [licenseKey] = (await t.app
      .get(DataSource)
      .query(`SELECT key FROM license_keys WHERE order_id = $1`, [
        orderId,
      ])) as { key: string }[];
    expect(html).toContain(licenseKey.key);
    expect(text).toContain(licenseKey.key);

    // The database records the send with the Message-ID the server got.
    const row = await waitFor(
      () => messageOf(orderId),
      (m) => m.status === 'sent',
    );
    expect(parsed.messageId).toBe(row.message_id);
    expect(row.smtp_reply).toMatch(/^250 .*Message queued as/);
    expect(row.attempts).toBe(1);

    // The button (receipt_button_text, to the signed receipt page) and the
    // signed invoice link work when followed.
    const button = /<a\s+href="([^"]+)"[^>]*>\s*Open your order\s*<\/a>/.exec(
      html,
    );
    expect(button).not.toBeNull();
    const receiptUrl = button![1].replace(/&amp;/g, '&');
    expect(text).toContain(`Open your order: ${receiptUrl}`);
    const receipt = await request(t.baseUrl).get(pathOf(receiptUrl));
    expect(receipt.status).toBe(200);
    expect(receipt.text).toContain('Desktop App');
    const invoiceUrl = /Invoice \(PDF\): (\S+)/.exec(text)![1];
    expect(html).toContain(invoiceUrl.replace(/&/g, '&amp;'));
    const invoice = await waitFor(
      () => request(t.baseUrl).get(pathOf(invoiceUrl)),
      (response) => response.status === 200,
    );
    expect(invoice.headers['content-type']).toBe('application/pdf');
    // A tampered link is refused.
    const tampered = await request(t.baseUrl).get(
      pathOf(receiptUrl).replace(/signature=[0-9a-f]/, 'signature=x'),
    );
    expect(tampered.status).toBe(403);

    // Once per cause: the same cause written again changes nothing.
    await t.app.get(Transactions).run((manager) =>
      t.app.get(MailOutbox).record(manager, {
        kind: 'order_receipt',
        storeId,
        customerId: null,
        testMode: true,
        recordId: orderId,
        to: email,
        now: new Date(),
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(
      await messages(`WHERE cause_key = $1`, [`order_receipt:${orderId}`]),
    ).toHaveLength(1);
    expect(receivedBy(email)).toHaveLength(1);
  });

  it('sends no receipt for a checkout with checkout_options.send_receipt false', async () => {
    const url = await licensedCheckout({}, { send_receipt: false });
    const email = `quiet-${randomUUID().slice(0, 8)}@example.com`;
    const orderId = await purchase(email, url);
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(await messageOf(orderId)).toBeUndefined();
    expect(receivedBy(email)).toHaveLength(0);
  });

  it('sends no receipt for a store that switched receipts off (mail_disabled_kinds), and refuses an unknown kind', async () => {
    const patch = (attributes: Record<string, unknown>) =>
      updateStore(t.baseUrl, merchant.testKey, storeId, attributes);
    const bad = await patch({ mail_disabled_kinds: ['newsletter'] });
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0]).toMatchObject({
      code: 'unknown_mail_kind',
      source: { pointer: '/data/attributes/mail_disabled_kinds' },
    });
    await patch({ mail_disabled_kinds: ['order_receipt'] }).expect(200);
    const email = `off-${randomUUID().slice(0, 8)}@example.com`;
    const orderId = await purchase(email);
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(await messageOf(orderId)).toBeUndefined();
    await patch({ mail_disabled_kinds: [] }).expect(200);
    const again = await purchase(email);
    await waitFor(
      () => messageOf(again),
      (m) => m?.status === 'sent',
    );
  });

  it('records a 5xx refusal of the recipient as failed, once, and leaves the order paid', async () => {
    const email = `unknown-${randomUUID().slice(0, 8)}@example.com`;
    smtp.behaviour.rejectRecipient = email;
    const orderId = await purchase(email);
    const row = await waitFor(
      () => messageOf(orderId),
      (m) => m.status === 'failed',
    );
    expect(row.smtp_reply).toMatch(/^550 .*Recipient address rejected/);
    // A permanent refusal is not retried.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect((await messageOf(orderId)).attempts).toBe(1);
    const order = await request(t.baseUrl)
      .get(`/v1/orders/${orderId}`)
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .expect(200);
    expect(order.body.data.attributes.status).toBe('paid');
  });

  it('fails a message the server refuses after DATA (554) without retrying', async () => {
    smtp.behaviour = { refuseData: 554 };
    const before = smtp.dataCommands;
    const email = `policy-${randomUUID().slice(0, 8)}@example.com`;
    const orderId = await purchase(email);
    const row = await waitFor(
      () => messageOf(orderId),
      (m) => m.status === 'failed',
    );
    smtp.behaviour = {};
    expect(row.smtp_reply).toMatch(/^554 /);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(smtp.dataCommands - before).toBe(1);
    expect((await messageOf(orderId)).attempts).toBe(1);
  });

  it('retries while the server is down and sends once it is back', async () => {
    await smtp.stop();
    const email = `later-${randomUUID().slice(0, 8)}@example.com`;
    const orderId = await purchase(email);
    const retried = await waitFor(
      () => messageOf(orderId),
      (m) => m.status === 'queued' && m.attempts >= 2,
    );
    expect(retried.smtp_reply).toMatch(/ECONNREFUSED|connect/i);
    await smtp.start();
    const sent = await waitFor(
      () => messageOf(orderId),
      (m) => m.status === 'sent',
    );
    expect(sent.attempts).toBeGreaterThanOrEqual(2);
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(receivedBy(email)).toHaveLength(1);
  });

  it('lists what a customer was sent at GET /v1/emails?filter[customer_id]=…, scoped to the key’s stores and mode', async () => {
    const email = `listed-${randomUUID().slice(0, 8)}@example.com`;
    const orderId = await purchase(email);
    await waitFor(
      () => messageOf(orderId),
      (m) => m.status === 'sent',
    );
    const order = await request(t.baseUrl)
      .get(`/v1/orders/${orderId}`)
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .expect(200);
    const customerId = order.body.data.attributes.customer_id as number;
    const list = await request(t.baseUrl)
      .get(`/v1/emails?filter[customer_id]=${customerId}&include=customer`)
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .expect(200);
    expect(list.headers['content-type']).toMatch(
      /^application\/vnd\.api\+json/,
    );
    expect(list.body.meta.page.total).toBe(1);
    const [resource] = list.body.data;
    expect(resource.type).toBe('emails');
    expect(resource.attributes).toMatchObject({
      store_id: storeId,
      customer_id: customerId,
      kind: 'order_receipt',
      to: email,
      status: 'sent',
      status_formatted: 'Sent',
      attempts: 1,
      test_mode: true,
    });
    expect(resource.attributes.subject).toMatch(/^\[Test mode\] Your receipt/);
    expect(resource.attributes.smtp_reply).toMatch(/^250 /);
    expect(list.body.included[0]).toMatchObject({
      type: 'customers',
      id: String(customerId),
    });
    const one = await request(t.baseUrl)
      .get(`/v1/emails/${resource.id}`)
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .expect(200);
    expect(one.body.data.attributes).toEqual(resource.attributes);

    // Another merchant, and the same merchant's live key, see none of it.
    const other = await createMerchant(t.app, ['Other Store']);
    await request(t.baseUrl)
      .get(`/v1/emails/${resource.id}`)
      .set('Authorization', `Bearer ${other.testKey}`)
      .expect(404);
    const foreign = await request(t.baseUrl)
      .get(`/v1/emails?filter[customer_id]=${customerId}`)
      .set('Authorization', `Bearer ${other.testKey}`)
      .expect(200);
    expect(foreign.body.data).toEqual([]);
    const live = await request(t.baseUrl)
      .get(`/v1/emails?filter[store_id]=${storeId}`)
      .set('Authorization', `Bearer ${merchant.liveKey}`)
      .expect(200);
    expect(live.body.data).toEqual([]);
    await request(t.baseUrl)
      .get('/v1/emails?filter[to]=x')
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .expect(400);
    const failed = await request(t.baseUrl)
      .get(`/v1/emails?filter[status]=failed&filter[store_id]=${storeId}`)
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .expect(200);
    for (const item of failed.body.data)
      expect(item.attributes.status).toBe('failed');
  });

  it("sends from the store's own From and Reply-To (PATCH /v1/stores/:id), refusing a malformed one", async () => {
    const patch = (attributes: Record<string, unknown>) =>
      updateStore(t.baseUrl, merchant.testKey, storeId, attributes);
    const bad = await patch({ mail_from: 'not an address, other@x.com' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0]).toMatchObject({
      code: 'invalid_mailbox',
      source: { pointer: '/data/attributes/mail_from' },
    });
    const ok = await patch({
      mail_from: 'Mail Store Team <team@mailstore.test>',
      mail_reply_to: 'help@mailstore.test',
    });
    expect(ok.status).toBe(200);
    // The spec's 15 attributes, Zest's `stripe` extension (never a key) and seller identity.
    expect(Object.keys(ok.body.data.attributes)).toHaveLength(19);
    expect(ok.body.data.attributes.stripe).toEqual({
      mode: 'test',
      configured: false,
    });

    const email = `from-${randomUUID().slice(0, 8)}@example.com`;
    await purchase(email);
    const [mail] = await waitFor(
      () => receivedBy(email),
      (mails) => mails.length === 1,
    );
    expect(mail.parsed.from?.value).toEqual([
      { address: 'team@mailstore.test', name: 'Mail Store Team' },
    ]);
    expect(mail.parsed.replyTo?.value).toEqual([
      { address: 'help@mailstore.test', name: '' },
    ]);
    expect(mail.parsed.messageId).toMatch(/@mailstore\.test>$/);
    await patch({ mail_from: null, mail_reply_to: null }).expect(200);
  });
});
