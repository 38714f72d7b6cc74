import request from 'supertest';
import { buySubscription, freezeClock, outboxEvents } from '../support/billing';
import { pathOf } from '../support/commerce';
import {
  createMerchant,
  createPrice,
  createPricedProduct,
  createVariant,
  Merchant,
} from '../support/factories';
import { startTestApp, TestApp } from '../support/test-app';
import { SignedUrls } from '../../src/common/signed-urls.service';

type Attributes = Record<string, unknown>;

const at = (iso: string) => new Date(iso);

const unescape = (html: string) =>
  html
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');

/** The action of the form with this id on a page. */
function formAction(html: string, id: string): string {
  const match = new RegExp(
    `<form method="post" action="([^"]+)" id="${id}">`,
  ).exec(html);
  if (!match) throw new Error(`no form #${id} on the page:\n${html}`);
  return pathOf(unescape(match[1]));
}

/** Visible text of a page, tags dropped, entities decoded. */
const textOf = (html: string) =>
  unescape(html.replace(/<[^>]+>/g, ' ')).replace(/\s+/g, ' ');

describe('customer portal: subscription self-service', () => {
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
  afterAll(() => t.close());

  const api = {
    get: (path: string) =>
      request(t.baseUrl)
        .get(path)
        .set('Authorization', `Bearer ${merchant.testKey}`)
        .set('Accept', 'application/vnd.api+json'),
    patch: (path: string, body: unknown) =>
      request(t.baseUrl)
        .patch(path)
        .set('Authorization', `Bearer ${merchant.testKey}`)
        .set('Content-Type', 'application/vnd.api+json')
        .send(body as object),
  };

  const attributesOf = async (id: string): Promise<Attributes> =>
    (await api.get(`/v1/subscriptions/${id}`).expect(200)).body.data
      .attributes as Attributes;

  const post = (path: string, form: Record<string, string> = {}) =>
    request(t.baseUrl).post(path).type('form').send(form);

  /** A $12.00 monthly plan with a $24.00 sibling, a draft sibling, and a plan of another product. */
  async function plans(price: Record<string, unknown> = {}) {
    const bought = await buySubscription(t.baseUrl, merchant.testKey, storeId, {
      unit_price: 1200,
      ...price,
    });
    const monthly = {
      category: 'subscription',
      renewal_interval_unit: 'month',
      renewal_interval_quantity: 1,
    };
    const pro = await createVariant(
      t.baseUrl,
      merchant.testKey,
      bought.productId,
      { name: 'Pro', status: 'published' },
    );
    await createPrice(t.baseUrl, merchant.testKey, pro.id, {
      ...monthly,
      unit_price: 2400,
    });
    const draft = await createVariant(
      t.baseUrl,
      merchant.testKey,
      bought.productId,
      { name: 'Secret', status: 'draft' },
    );
    await createPrice(t.baseUrl, merchant.testKey, draft.id, {
      ...monthly,
      unit_price: 100,
    });
    const other = await createPricedProduct(
      t.baseUrl,
      merchant.testKey,
      storeId,
      { ...monthly, unit_price: 500 },
    );
    const id = bought.subscription.id;
    return {
      id,
      /** A fresh signed page link (they last 24 hours), as the API hands out. */
      pagePath: async () =>
        pathOf(
          ((await attributesOf(id)).urls as Attributes)
            .customer_portal_update_subscription as string,
        ),
      proId: pro.id,
      draftId: draft.id,
      otherVariantId: other.variantId,
    };
  }

  const page = async (path: string) => {
    const response = await request(t.baseUrl).get(path).expect(200);
    expect(response.headers['content-type']).toMatch(/text\/html/);
    return response.text;
  };

  it('shows the terms, the plans, the quantity and the invoices', async () => {
    setNow(at('2027-01-10T12:00:00Z'));
    const s = await plans();
    const html = await page(await s.pagePath());
    const text = textOf(html);
    expect(text).toContain(
      '$12.00 per month from Feb 10, 2027; cancel any time',
    );
    expect(text).toContain('Pro: $24.00 per month');
    expect(text).not.toContain('Secret');
    expect(html).toMatch(/<input id="quantity" name="quantity" type="number"/);
    // The first payment's invoice, with its signed PDF link.
    expect(text).toContain('First payment');
    expect(html).toMatch(
      /href="http:\/\/127\.0\.0\.1:\d+\/invoices\/subscription-invoices\/\d+\?/,
    );
    for (const id of ['plan-form', 'quantity-form', 'cancel-form'])
      formAction(html, id);
  });

  it('prices a plan change before confirming it, then changes the plan', async () => {
    setNow(at('2027-01-10T12:00:00Z'));
    const s = await plans();
    setNow(at('2027-01-25T12:00:00Z'));
    const html = await page(await s.pagePath());
    const preview = await post(formAction(html, 'plan-form'), {
      variant_id: s.proId,
    }).expect(200);
    // Half of January's period remains: $12.00 more for it, as PATCH computes.
    const proration = /data-proration="(-?\d+)"/.exec(preview.text);
    expect(Number(proration?.[1])).toBeGreaterThan(500);
    expect(Number(proration?.[1])).toBeLessThan(700);
    expect(textOf(preview.text)).toMatch(
      /Switch to Pro : \$24\.00 per month\. \$6\.\d\d for the rest of this period is added to your next renewal\./,
    );
    // Nothing changed yet.
    expect((await attributesOf(s.id)).variant_id).not.toBe(Number(s.proId));
    const done = await post(formAction(preview.text, 'plan-confirm-form'), {
      variant_id: s.proId,
    }).expect(200);
    expect(textOf(done.text)).toContain('Your plan was changed.');
    const after = await attributesOf(s.id);
    expect(after.variant_id).toBe(Number(s.proId));
    expect(after.variant_name).toBe('Pro');
  });

  it('refuses another product’s plan, an unpublished plan and nonsense with 422 on the page', async () => {
    setNow(at('2027-01-10T12:00:00Z'));
    const s = await plans();
    const html = await page(await s.pagePath());
    const action = formAction(html, 'plan-form');
    const preview = await post(action, { variant_id: s.proId }).expect(200);
    const confirm = formAction(preview.text, 'plan-confirm-form');
    for (const variantId of [s.otherVariantId, s.draftId, 'abc', '999999']) {
      for (const path of [action, confirm]) {
        const refused = await post(path, { variant_id: variantId }).expect(422);
        expect(refused.headers['content-type']).toMatch(/text\/html/);
        expect(textOf(refused.text)).toContain(
          'This plan is not offered for this subscription',
        );
      }
    }
    expect((await attributesOf(s.id)).variant_name).not.toBe('Pro');
  });

  it('changes the quantity within 1 to 1000 and refuses the rest with 422', async () => {
    setNow(at('2027-01-10T12:00:00Z'));
    const s = await plans();
    const action = formAction(await page(await s.pagePath()), 'quantity-form');
    for (const quantity of ['0', '-1', '1001', 'many', '2.5', '']) {
      const refused = await post(action, { quantity }).expect(422);
      expect(textOf(refused.text)).toContain(
        'The quantity must be a whole number from 1 to 1000.',
      );
    }
    const done = await post(action, { quantity: '3' }).expect(200);
    expect(textOf(done.text)).toContain('Your quantity was updated.');
    const item = (await attributesOf(s.id))
      .first_subscription_item as Attributes;
    expect(item.quantity).toBe(3);
    expect(textOf(done.text)).toContain('$36.00 per month');
  });

  it('cancels at the period end and resumes; an ended subscription cannot be resumed (422)', async () => {
    setNow(at('2027-01-10T12:00:00Z'));
    const s = await plans();
    const cancelled = await post(
      formAction(await page(await s.pagePath()), 'cancel-form'),
    ).expect(200);
    expect(textOf(cancelled.text)).toContain(
      'Cancelled: ends on Feb 10, 2027.',
    );
    expect(await attributesOf(s.id)).toMatchObject({
      status: 'cancelled',
      cancelled: true,
      ends_at: '2027-02-10T12:00:00.000000Z',
    });
    const resumePath = formAction(cancelled.text, 'resume-form');
    await post(resumePath).expect(200);
    expect(await attributesOf(s.id)).toMatchObject({
      status: 'active',
      cancelled: false,
      ends_at: null,
    });
    await post(
      formAction(await page(await s.pagePath()), 'cancel-form'),
    ).expect(200);
    setNow(at('2027-02-11T12:00:00Z'));
    const ended = await page(await s.pagePath());
    expect(textOf(ended)).toContain('Cancelled: ended on Feb 10, 2027.');
    expect(ended).not.toContain('resume-form');
    // A resume link signed now (the page offers none once it has ended).
    const fresh = pathOf(
      t.app
        .get(SignedUrls)
        .sign(t.baseUrl, `/portal/subscriptions/${s.id}/resume`),
    );
    const refused = await post(fresh).expect(422);
    expect(textOf(refused.text)).toMatch(/ended|expired/);
    expect((await attributesOf(s.id)).cancelled).toBe(true);
  });

  it('takes only its own signed links and same-site forms', async () => {
    setNow(at('2027-01-10T12:00:00Z'));
    const s = await plans();
    const action = formAction(await page(await s.pagePath()), 'cancel-form');
    const tampered = action.replace(
      /signature=([0-9a-f])/,
      (_, c: string) => `signature=${c === 'a' ? 'b' : 'a'}`,
    );
    await post(tampered).expect(403);
    // Another subscription's id under this signature.
    await post(action.replace(`/${s.id}/`, `/${Number(s.id) + 1}/`)).expect(
      403,
    );
    await request(t.baseUrl)
      .post(action)
      .set('Sec-Fetch-Site', 'cross-site')
      .type('form')
      .send({})
      .expect(403);
    await request(t.baseUrl)
      .post(action)
      .set('Origin', 'https://evil.example')
      .type('form')
      .send({})
      .expect(403);
    expect((await attributesOf(s.id)).status).toBe('active');
  });

  it('emits the same webhook events as the API for cancel, resume and a plan change', async () => {
    setNow(at('2027-01-10T12:00:00Z'));
    const viaPortal = await plans();
    const viaApi = await plans();
    setNow(at('2027-01-20T12:00:00Z'));
    const html = await page(await viaPortal.pagePath());
    await post(formAction(html, 'cancel-form')).expect(200);
    const cancelledPage = await page(await viaPortal.pagePath());
    await post(formAction(cancelledPage, 'resume-form')).expect(200);
    const preview = await post(formAction(html, 'plan-form'), {
      variant_id: viaPortal.proId,
    }).expect(200);
    await post(formAction(preview.text, 'plan-confirm-form'), {
      variant_id: viaPortal.proId,
    }).expect(200);

    const patch = (attributes: Attributes) =>
      api
        .patch(`/v1/subscriptions/${viaApi.id}`, {
          data: { type: 'subscriptions', id: viaApi.id, attributes },
        })
        .expect(200);
    await patch({ cancelled: true });
    await patch({ cancelled: false });
    await patch({ variant_id: Number(viaApi.proId) });

    const events = await outboxEvents(t.app, storeId);
    const of = (id: string) =>
      events
        .filter((e) => e.type === 'subscriptions' && e.id === id)
        .map((e) => ({
          name: e.name,
          status: e.attributes.status,
          cancelled: e.attributes.cancelled,
          variant_name: e.attributes.variant_name,
          ends_at: e.attributes.ends_at,
          renews_at: e.attributes.renews_at,
        }));
    const portalEvents = of(viaPortal.id);
    expect(portalEvents.map((e) => e.name)).toEqual([
      'subscription_created',
      'subscription_updated',
      'subscription_cancelled',
      'subscription_updated',
      'subscription_resumed',
      'subscription_updated',
    ]);
    expect(portalEvents).toEqual(of(viaApi.id));
  });
});
