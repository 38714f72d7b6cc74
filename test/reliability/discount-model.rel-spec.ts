import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { DataSource } from 'typeorm';
import { buyNowUrl, pathOf } from '../support/commerce';
import {
  createMerchant,
  createPricedProduct,
  Merchant,
} from '../support/factories';
import { startTestApp, TestApp } from '../support/test-app';
import { client, no5xx } from './support/api';
import { closeAgent } from './support/http';
import { RUNS, report } from './support/runs';

interface Model {
  /** null: unlimited redemptions. */
  max: number | null;
  used: number;
  deleted: boolean;
  expired: boolean;
  /** Orders of the store, to check numbering. */
  orders: number;
}

interface Real {
  discountId: string;
  code: string;
}

const room = (m: Model) =>
  m.deleted || m.expired ? 0 : m.max === null ? Infinity : m.max - m.used;

describe('discount redemptions against a pure model', () => {
  let t: TestApp;
  let merchant: Merchant;
  let buyPath: string;
  let api: ReturnType<typeof client>;
  const stats = { runs: 0, purchases: 0, redeemed: 0, refused: 0 };

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '10000000' });
    merchant = await createMerchant(t.app, ['Discount Model Store']);
    const { product } = await createPricedProduct(
      t.baseUrl,
      merchant.testKey,
      merchant.stores[0].id,
    );
    buyPath = pathOf(await buyNowUrl(t.baseUrl, merchant.testKey, product.id));
    api = client(t.baseUrl, merchant.testKey);
  });
  afterAll(async () => {
    report(
      'discount model',
      `${stats.runs} runs, ${stats.purchases} purchases (${stats.redeemed} with the code, ${stats.refused} refused with 422), 0 over-redemptions, order numbers gap-free`,
    );
    closeAgent();
    await t?.close();
  });

  const purchase = async (code?: string) => {
    stats.purchases++;
    return no5xx(
      await client(t.baseUrl).post(buyPath, {
        email: `buyer-${randomBytes(3).toString('hex')}@example.com`,
        name: 'Model Buyer',
        billing_address: { country: 'US', zip: '10001' },
        card_number: '4242424242424242',
        ...(code ? { discount_code: code } : {}),
      }),
      'purchase',
    );
  };

  /** k buyers use the code at once: exactly min(k, room) get it; the others get a 422 and no order. */
  class Burst implements fc.AsyncCommand<Model, Real> {
    constructor(
      readonly withCode: number,
      readonly without: number,
    ) {}
    check = () => true;
    async run(m: Model, r: Real) {
      const responses = await Promise.all([
        ...Array.from({ length: this.withCode }, () => purchase(r.code)),
        ...Array.from({ length: this.without }, () => purchase()),
      ]);
      const coded = responses.slice(0, this.withCode);
      const won = coded.filter((res) => res.status === 201);
      expect(won.length).toBe(Math.min(this.withCode, room(m)));
      for (const res of coded) {
        if (res.status === 201) {
          expect(res.body.data.attributes.discount_total).toBeGreaterThan(0);
        } else {
          expect(res.status).toBe(422);
          stats.refused++;
        }
      }
      for (const res of responses.slice(this.withCode))
        expect(res.status).toBe(201);
      stats.redeemed += won.length;
      m.used += won.length;
      m.orders += won.length + this.without;
    }
    toString = () => `Burst(${this.withCode}, ${this.without})`;
  }

  class Delete implements fc.AsyncCommand<Model, Real> {
    check = (m: Readonly<Model>) => !m.deleted;
    async run(m: Model, r: Real) {
      const res = no5xx(
        await api.delete(`/v1/discounts/${r.discountId}`),
        'delete',
      );
      expect(res.status).toBe(204);
      m.deleted = true;
    }
    toString = () => 'Delete';
  }

  const checkInvariants = async (m: Model, r: Real) => {
    const db = t.app.get(DataSource);
    const [row] = await db.query(
      `SELECT (SELECT count(*)::int FROM discount_redemptions WHERE discount_id = $1) AS redemptions,
              (SELECT count(*)::int FROM orders o
                 JOIN discount_redemptions d ON d.order_id = o.id
                WHERE d.discount_id = $1 AND o.discount_total > 0) AS orders`,
      [r.discountId],
    );
    expect(row.redemptions).toBe(m.used);
    expect(row.orders).toBe(m.used);
    if (m.max !== null) expect(m.used).toBeLessThanOrEqual(m.max);
    if (!m.deleted) {
      const res = await api.get(`/v1/discounts/${r.discountId}`);
      expect(res.status).toBe(200);
    }
  };

  it('parallel purchases with a limited code never redeem it past max_redemptions', async () => {
    const commands = fc.commands(
      [
        fc
          .tuple(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 0, max: 2 }))
          .map(([k, w]) => new Burst(k, w)),
        fc.constant(new Delete()),
      ],
      { maxCommands: 4 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.option(fc.integer({ min: 1, max: 4 }), { freq: 5 }),
        fc.boolean(),
        fc.integer({ min: 0, max: 9 }),
        commands,
        async (max, expired, expiredWeight, cmds) => {
          stats.runs++;
          const isExpired = expired && expiredWeight === 0;
          const code = `M${randomBytes(5).toString('hex').toUpperCase()}`;
          const created = no5xx(
            await api.post('/v1/discounts', {
              data: {
                type: 'discounts',
                attributes: {
                  name: 'Model',
                  code,
                  amount: 10,
                  amount_type: 'percent',
                  is_limited_redemptions: max !== null,
                  ...(max !== null ? { max_redemptions: max } : {}),
                  ...(isExpired
                    ? { expires_at: '2001-01-01T00:00:00.000000Z' }
                    : {}),
                },
                relationships: {
                  store: {
                    data: {
                      type: 'stores',
                      id: String(merchant.stores[0].id),
                    },
                  },
                },
              },
            }),
            'create discount',
          );
          expect(created.status).toBe(201);
          const model: Model = {
            max,
            used: 0,
            deleted: false,
            expired: isExpired,
            orders: 0,
          };
          const real: Real = { discountId: created.body.data.id, code };
          const checked = [...cmds].map((cmd) => ({
            check: (m: Readonly<Model>) => cmd.check(m),
            run: async (m: Model, r: Real) => {
              await cmd.run(m, r);
              await checkInvariants(m, r);
            },
            toString: () => cmd.toString(),
          }));
          await fc.asyncModelRun(() => ({ model, real }), checked);
        },
      ),
      { numRuns: RUNS, endOnFailure: true },
    );
    // Every order got the next number: 1..N with no gap and no repeat.
    const numbers: { n: number }[] = await t.app
      .get(DataSource)
      .query(
        `SELECT order_number AS n FROM orders WHERE store_id = $1 ORDER BY order_number`,
        [merchant.stores[0].id],
      );
    expect(numbers.map((row) => Number(row.n))).toEqual(
      numbers.map((_, i) => i + 1),
    );
  });
});
