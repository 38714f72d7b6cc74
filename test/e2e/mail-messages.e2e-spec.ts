import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, openAsBlob, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { MetricsService } from '../../src/metrics/metrics.service';
import { RenewalService } from '../../src/modules/billing/renewal.service';
import { buySubscription } from '../support/billing';
import { buy, buyNowUrl, pathOf } from '../support/commerce';
import {
  createMerchant,
  createPrice,
  createPricedProduct,
  createVariant,
  Merchant,
} from '../support/factories';
import { ReceivedMail, startSmtpServer, TestSmtpServer } from '../support/smtp';
import { uploadFile } from '../support/files';
import { startTestApp, TestApp } from '../support/test-app';
import { startTestWorker, TestWorker } from '../support/worker';

async function waitFor<T>(
  read: () => Promise<T> | T,
  done: (value: T) => boolean,
  timeoutMs = 20_000,
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The first absolute link after `label: ` in a text part. */
function linkAfter(text: string, label: string): string {
  const match = new RegExp(`${label}: (http\\S+)`).exec(text);
  if (!match) throw new Error(`no "${label}" link in:\n${text}`);
  return match[1];
}

describe('every kind of message, once per cause, over a real SMTP server', () => {
  let smtp: TestSmtpServer;
  let t: TestApp;
  let worker: TestWorker;
  let merchant: Merchant;
  let storeId: number;

  const db = () => t.app.get(DataSource);
  const api = () => ({
    get: (path: string) =>
      request(t.baseUrl)
        .get(path)
        .set('Authorization', `Bearer ${merchant.testKey}`),
    send: (method: 'post' | 'patch' | 'delete', path: string, body?: object) =>
      request(t.baseUrl)
        [method](path)
        .set('Authorization', `Bearer ${merchant.testKey}`)
        .set('Content-Type', 'application/vnd.api+json')
        .send(body),
  });
  const mailsTo = (address: string, subject?: RegExp): ReceivedMail[] =>
    smtp.received.filter(
      (mail) =>
        mail.envelopeTo.includes(address) &&
        (!subject || subject.test(mail.parsed.subject ?? '')),
    );
  /** Waits for exactly one message to `address` matching `subject`, and a little longer for a duplicate. */
  async function oneMail(address: string, subject: RegExp) {
    await waitFor(
      () => mailsTo(address, subject),
      (mails) => mails.length >= 1,
    );
    await sleep(700);
    const mails = mailsTo(address, subject);
    expect(mails).toHaveLength(1);
    const { parsed } = mails[0];
    return {
      subject: parsed.subject ?? '',
      html: String(parsed.html),
      text: parsed.text ?? '',
    };
  }
  const patchSubscription = (id: string, attributes: Record<string, unknown>) =>
    api().send('patch', `/v1/subscriptions/${id}`, {
      data: { type: 'subscriptions', id, attributes },
    });
  const sweep = () => t.app.get(RenewalService).sweep(new Date());
  /** Makes the subscription's next renewal (or retry) due now. */
  const dueNow = (id: string) =>
    db().query(
      `UPDATE subscriptions SET renews_at = now() - interval '1 minute',
              next_action_at = now() - interval '1 minute'
        WHERE id = $1`,
      [id],
    );

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestApp({
      MAIL_URL: smtp.url,
      MAIL_FROM: 'Zest Mail <mail@zest.test>',
      MAIL_RETRY_DELAYS: '300ms*20',
      MAIL_SWEEP_INTERVAL_MS: '300',
      MAIL_TIMEOUT_MS: '2000',
      BILLING_SWEEP_INTERVAL_MS: '300',
    });
    worker = await startTestWorker(t);
    merchant = await createMerchant(t.app, ['Notice Store']);
    storeId = merchant.stores[0].id;
  }, 60_000);

  afterAll(async () => {
    await worker?.close();
    await t?.close();
    await smtp?.stop();
  });

  it('puts each file of the order in the receipt with a signed link that downloads it; refunds are mailed, partial then full', async () => {
    const key = merchant.testKey;
    const { product, variantId } = await createPricedProduct(
      t.baseUrl,
      key,
      storeId,
      { unit_price: 2500 },
      { name: 'Font Pack' },
    );
    const dir = mkdtempSync(join(tmpdir(), 'zest-mail-file-'));
    const content = randomBytes(4096);
    writeFileSync(join(dir, 'fonts.zip'), content);
    const uploaded = await uploadFile(t.baseUrl, key, {
      variantId,
      file: await openAsBlob(join(dir, 'fonts.zip')),
      name: 'fonts.zip',
      attributes: {},
    });
    expect(uploaded.status).toBe(201);

    const email = `files-${randomUUID().slice(0, 8)}@example.com`;
    const bought = await buy(
      t.baseUrl,
      await buyNowUrl(t.baseUrl, key, product.id),
      { email },
    ).expect(201);
    const orderId = String((bought.body as { data: { id: string } }).data.id);
    const receipt = await oneMail(email, /Your receipt/);
    expect(receipt.subject).toMatch(/^\[Test mode\] /);
    const downloadUrl = linkAfter(
      receipt.text.replace(/fonts\.zip \([^)]+\)\n/, 'Download: '),
      'Download',
    );
    expect(receipt.html).toContain(downloadUrl.replace(/&/g, '&amp;'));
    expect(receipt.html).toContain('fonts.zip');
    const file = await fetch(downloadUrl);
    expect(file.status).toBe(200);
    expect(Buffer.from(await file.arrayBuffer()).equals(content)).toBe(true);
    const invoice = await waitFor(
      () => fetch(linkAfter(receipt.text, 'Invoice \\(PDF\\)')),
      (response) => response.status === 200,
    );
    expect(invoice.headers.get('content-type')).toBe('application/pdf');

    // A partial refund, then the rest: one message each, with the amount.
    const refund = (attributes: Record<string, unknown>) =>
      api()
        .send('post', `/v1/orders/${orderId}/refund`, {
          data: { type: 'orders', id: orderId, attributes },
        })
        .expect(200);
    await refund({ amount: 1000 });
    const partial = await oneMail(email, /partial refund/i);
    expect(partial.subject).toMatch(
      /^\[Test mode\] A partial refund for order #\d+$/,
    );
    expect(partial.text).toContain('We refunded $10.00');
    expect(partial.text).toMatch(/Test mode/);
    await refund({});
    const full = await oneMail(email, /Your refund for order/);
    expect(full.text).toContain('We refunded $15.00');
    expect(full.text).toContain('Refunded in all: $25.00');
  });

  it('mails a subscription through its life: started, trial ending, cancelled, resumed, plan changed, renewed, payment failed, refunded, expired', async () => {
    const email = `sub-${randomUUID().slice(0, 8)}@example.com`;
    const { subscription, productId } = await buySubscription(
      t.baseUrl,
      merchant.testKey,
      storeId,
      {
        unit_price: 900,
        trial_interval_unit: 'day',
        trial_interval_quantity: 14,
      },
      { email, name: 'Sam Subscriber' },
      { name: 'Cloud Sync' },
    );
    const id = subscription.id;

    const started = await oneMail(email, /subscription has started/);
    expect(started.subject).toBe(
      '[Test mode] Your Cloud Sync subscription has started',
    );
    expect(started.text).toMatch(/Free trial ends: \w+ \d+, \d{4}/);
    expect(started.html).toContain('Test mode');
    const portal = await request(t.baseUrl).get(
      pathOf(linkAfter(started.text, 'Manage your subscription')),
    );
    expect(portal.status).toBe(200);

    // The trial now ends in two days: the scheduled sweep (every 300 ms)
    // mails the reminder once, however many sweeps run.
    await db().query(
      `UPDATE subscriptions SET trial_ends_at = now() + interval '2 days',
              renews_at = now() + interval '2 days' WHERE id = $1`,
      [id],
    );
    const ending = await oneMail(email, /trial ends soon/);
    expect(ending.text).toContain('Trial ends:');
    await sleep(1000);
    expect(mailsTo(email, /trial ends soon/)).toHaveLength(1);

    // Cancelled, by two requests at once: one change, one message.
    const cancels = await Promise.all([
      api().send('delete', `/v1/subscriptions/${id}`),
      api().send('delete', `/v1/subscriptions/${id}`),
    ]);
    expect(cancels.map((r) => r.status)).toEqual([200, 200]);
    const cancelled = await oneMail(email, /was cancelled/);
    expect(cancelled.text).toMatch(/Ends: \w+ \d+, \d{4}/);

    await patchSubscription(id, { cancelled: false }).expect(200);
    await oneMail(email, /was resumed/);

    // A plan change (another variant of the product).
    const variant = await createVariant(
      t.baseUrl,
      merchant.testKey,
      productId,
      { name: 'Team', status: 'published' },
    );
    await createPrice(t.baseUrl, merchant.testKey, variant.id, {
      category: 'subscription',
      unit_price: 1900,
      renewal_interval_unit: 'month',
      renewal_interval_quantity: 1,
    });
    await patchSubscription(id, {
      variant_id: Number(variant.id),
      disable_prorations: true,
    }).expect(200);
    const changed = await oneMail(email, /plan was changed/);
    expect(changed.text).toContain('(Team)');
    // Other updates (a new trial end) mail nothing.
    await patchSubscription(id, {
      trial_ends_at: new Date(Date.now() + 20 * 86400_000).toISOString(),
    }).expect(200);

    // The trial ends: the renewal is charged; two sweeps at once bill and mail once.
    await dueNow(id);
    await Promise.all([sweep(), sweep()]);
    const renewed = await oneMail(email, /was renewed/);
    expect(renewed.text).toContain('Amount: $19.00');
    const renewalPdf = await waitFor(
      () => fetch(linkAfter(renewed.text, 'Download the invoice \\(PDF\\)')),
      (response) => response.status === 200,
    );
    expect(renewalPdf.headers.get('content-type')).toBe('application/pdf');

    // The renewal invoice is refunded in part.
    const [renewalInvoice] = (await db().query(
      `SELECT id FROM subscription_invoices
        WHERE subscription_id = $1 AND billing_reason = 'renewal'`,
      [id],
    )) as { id: number }[];
    await api()
      .send('post', `/v1/subscription-invoices/${renewalInvoice.id}/refund`, {
        data: {
          type: 'subscription-invoices',
          id: String(renewalInvoice.id),
          attributes: { amount: 500 },
        },
      })
      .expect(200);
    const invoiceRefund = await oneMail(email, /refund for your subscription/);
    expect(invoiceRefund.text).toContain('We refunded $5.00');

    // The card starts declining: the next renewal fails, and the message
    // carries a working "update payment method" link and the next retry.
    await db().query(
      `UPDATE subscriptions SET payment_method = 'pm_test_declined' WHERE id = $1`,
      [id],
    );
    await dueNow(id);
    await sweep();
    const failed = await oneMail(email, /payment for Cloud Sync failed/);
    expect(failed.text).toMatch(/Next attempt: \w+ \d+, \d{4}/);
    const update = await request(t.baseUrl).get(
      pathOf(linkAfter(failed.text, 'Update payment method')),
    );
    expect(update.status).toBe(200);
    expect(update.text).toContain('Update payment method');

    // Cancelled while past due: it ends at once, and the sweep expires it.
    await api().send('delete', `/v1/subscriptions/${id}`).expect(200);
    await waitFor(
      () => mailsTo(email, /was cancelled/),
      (mails) => mails.length === 2,
    );
    await sleep(50);
    await Promise.all([sweep(), sweep()]);
    const expired = await oneMail(email, /has ended/);
    expect(expired.subject).toBe(
      '[Test mode] Your Cloud Sync subscription has ended',
    );

    // Every message to this subscriber was recorded once and sent.
    const rows = (await db().query(
      `SELECT kind, status FROM mail_messages WHERE to_address = $1 ORDER BY id`,
      [email],
    )) as { kind: string; status: string }[];
    // The subscription is created before the receipt (purchase extension order).
    expect(rows.map((row) => row.kind)).toEqual([
      'subscription_started',
      'order_receipt',
      'subscription_trial_ending',
      'subscription_cancelled',
      'subscription_resumed',
      'subscription_plan_changed',
      'subscription_renewed',
      'refund_issued',
      'subscription_payment_failed',
      'subscription_cancelled',
      'subscription_expired',
    ]);
    expect(rows.every((row) => row.status === 'sent')).toBe(true);

    // The worker counts what it sent on /metrics.
    const metrics = await worker.context.get(MetricsService).exposition();
    const sent = /^zest_mail_messages_total\{outcome="sent"\} (\d+)$/m.exec(
      metrics.body,
    );
    expect(Number(sent?.[1])).toBeGreaterThanOrEqual(rows.length);
  });

  it('sends no kind the store switched off', async () => {
    await db().query(
      `UPDATE stores SET mail_disabled_kinds = '{subscription_started}' WHERE id = $1`,
      [storeId],
    );
    try {
      const email = `quiet-${randomUUID().slice(0, 8)}@example.com`;
      await buySubscription(
        t.baseUrl,
        merchant.testKey,
        storeId,
        { unit_price: 500 },
        { email },
      );
      await oneMail(email, /Your receipt/);
      expect(mailsTo(email)).toHaveLength(1);
      expect(
        await db().query(
          `SELECT 1 FROM mail_messages WHERE to_address = $1 AND kind = 'subscription_started'`,
          [email],
        ),
      ).toEqual([]);
    } finally {
      await db().query(
        `UPDATE stores SET mail_disabled_kinds = '{}' WHERE id = $1`,
        [storeId],
      );
    }
  });

  describe('portal sign-in', () => {
    async function formAction(): Promise<string> {
      const page = await request(t.baseUrl).get('/portal/sign-in').expect(200);
      expect(page.headers['content-type']).toMatch(/text\/html/);
      const action = /<form method="post" action="([^"]+)"/.exec(page.text);
      expect(action).not.toBeNull();
      return pathOf(action![1].replace(/&amp;/g, '&'));
    }
    const post = (action: string, email: string) =>
      request(t.baseUrl).post(action).type('form').send({ email });

    it('answers the same for a known and an unknown address, and mails a link to the portal that works for an hour', async () => {
      const email = `portal-${randomUUID().slice(0, 8)}@example.com`;
      await buy(
        t.baseUrl,
        await buyNowUrl(
          t.baseUrl,
          merchant.testKey,
          (await createPricedProduct(t.baseUrl, merchant.testKey, storeId))
            .product.id,
        ),
        { email },
      ).expect(201);
      const action = await formAction();
      const [known, unknown] = await Promise.all([
        post(action, email.toUpperCase()),
        post(action, `nobody-${randomUUID().slice(0, 8)}@example.com`),
      ]);
      expect(known.status).toBe(200);
      expect(unknown.status).toBe(200);
      expect(known.text).toBe(unknown.text);
      expect(known.text).toContain('If there is an account for that address');

      const mail = await oneMail(email, /sign-in link/);
      expect(mail.subject).toBe(
        '[Test mode] Your sign-in link for Notice Store',
      );
      expect(mail.text).toContain("Test mode: this link opens the store's");
      expect(mail.html).toContain('Test mode');
      const link = linkAfter(mail.text, 'Open your account');
      const expires = Number(new URL(link).searchParams.get('expires'));
      const inAnHour = Date.now() / 1000 + 3600;
      expect(Math.abs(expires - inAnHour)).toBeLessThan(120);
      const portal = await request(t.baseUrl).get(pathOf(link));
      expect(portal.status).toBe(200);
      expect(portal.text).toContain('Notice Store');

      // Without the form's signature the request is refused.
      expect((await post('/portal/sign-in', email)).status).toBe(403);
      expect((await post(action, 'not an address')).status).toBe(422);
    });

    it('limits requests per address (429), known or not', async () => {
      const action = await formAction();
      const address = `limited-${randomUUID().slice(0, 8)}@example.com`;
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++)
        statuses.push((await post(action, address)).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
      const refused = await post(action, address);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    });

    it('limits requests per client IP (429), whatever the addresses', async () => {
      const action = await formAction();
      let refused: request.Response | null = null;
      for (let i = 0; i < 40 && !refused; i++) {
        const response = await post(
          action,
          `ip-${i}-${randomUUID().slice(0, 8)}@example.com`,
        );
        if (response.status === 429) refused = response;
        else expect(response.status).toBe(200);
      }
      expect(refused).not.toBeNull();
      expect(refused!.text).toContain('from this network (30 an hour)');
    });
  });
});
