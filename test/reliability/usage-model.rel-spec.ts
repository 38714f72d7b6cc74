import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { DataSource } from 'typeorm';
import { buySubscription } from '../support/billing';
import { createMerchant, Merchant } from '../support/factories';
import { startTestApp, TestApp } from '../support/test-app';
import { client, no5xx } from './support/api';
import { closeAgent } from './support/http';
import { RUNS, report } from './support/runs';

interface Model {
  /** The open period's total. */
  total: number;
  /** Usage records stored. */
  records: number;
}

interface Real {
  itemId: string;
}

/** Every total reachable by adding some of `values` (the increments that landed after a set). */
function subsetSums(values: number[]): Set<number> {
  let sums = new Set([0]);
  for (const value of values)
    sums = new Set([...sums, ...[...sums].map((sum) => sum + value)]);
  return sums;
}

describe('usage records against a pure model', () => {
  let t: TestApp;
  let merchant: Merchant;
  let api: ReturnType<typeof client>;
  const stats = { runs: 0, records: 0, replays: 0, conflicts: 0 };

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '10000000' });
    merchant = await createMerchant(t.app, ['Usage Model Store']);
    api = client(t.baseUrl, merchant.testKey);
  });
  afterAll(async () => {
    report(
      'usage model',
      `${stats.runs} runs, ${stats.records} usage records posted (${stats.replays} idempotent replays, ${stats.conflicts} in-flight 409s), totals exact`,
    );
    closeAgent();
    await t?.close();
  });

  const post = (
    r: Real,
    quantity: unknown,
    action?: unknown,
    headers: Record<string, string> = {},
  ) => {
    stats.records++;
    return api
      .post(
        '/v1/usage-records',
        {
          data: {
            type: 'usage-records',
            attributes: {
              quantity,
              ...(action === undefined ? {} : { action }),
            },
            relationships: {
              'subscription-item': {
                data: { type: 'subscription-items', id: r.itemId },
              },
            },
          },
        },
        headers,
      )
      .then((res) => no5xx(res, 'usage record'));
  };

  class Increments implements fc.AsyncCommand<Model, Real> {
    constructor(readonly quantities: number[]) {}
    check = () => true;
    async run(m: Model, r: Real) {
      const responses = await Promise.all(
        this.quantities.map((q) => post(r, q)),
      );
      expect(responses.map((res) => res.status)).toEqual(
        this.quantities.map(() => 201),
      );
      m.total += this.quantities.reduce((a, b) => a + b, 0);
      m.records += this.quantities.length;
    }
    toString = () => `Increments(${this.quantities.join(',')})`;
  }

  /** A `set` racing increments: the total is the set value plus the increments ordered after it. */
  class SetAmid implements fc.AsyncCommand<Model, Real> {
    constructor(
      readonly value: number,
      readonly quantities: number[],
    ) {}
    check = () => true;
    async run(m: Model, r: Real) {
      const responses = await Promise.all([
        post(r, this.value, 'set'),
        ...this.quantities.map((q) => post(r, q)),
      ]);
      expect(responses.every((res) => res.status === 201)).toBe(true);
      const total = await currentTotal(r);
      expect(subsetSums(this.quantities).has(total - this.value)).toBe(true);
      m.total = total;
      m.records += responses.length;
    }
    toString = () => `SetAmid(${this.value}, ${this.quantities.join(',')})`;
  }

  /** One Idempotency-Key sent k times at once: counted once; the rest replay or get 409. */
  class Idempotent implements fc.AsyncCommand<Model, Real> {
    constructor(
      readonly quantity: number,
      readonly k: number,
    ) {}
    check = () => true;
    async run(m: Model, r: Real) {
      const key = randomUUID();
      const responses = await Promise.all(
        Array.from({ length: this.k }, () =>
          post(r, this.quantity, undefined, { 'idempotency-key': key }),
        ),
      );
      // Once the first finished, a repeat replays it.
      responses.push(
        await post(r, this.quantity, undefined, { 'idempotency-key': key }),
      );
      expect(responses[responses.length - 1].status).toBe(201);
      const created = responses.filter((res) => res.status === 201);
      const conflicts = responses.filter((res) => res.status === 409);
      expect(created.length + conflicts.length).toBe(this.k + 1);
      expect(created.length).toBeGreaterThanOrEqual(1);
      // Replays carry the first response: one record id among all 201s.
      expect(new Set(created.map((res) => res.body.data.id)).size).toBe(1);
      stats.replays += created.filter(
        (res) => res.headers['idempotent-replayed'] === 'true',
      ).length;
      stats.conflicts += conflicts.length;
      m.total += this.quantity;
      m.records += 1;
    }
    toString = () => `Idempotent(${this.quantity}, ${this.k})`;
  }

  /** Invalid records are refused with 422 and change nothing. */
  class Invalid implements fc.AsyncCommand<Model, Real> {
    constructor(
      readonly quantity: unknown,
      readonly action: unknown,
    ) {}
    check = () => true;
    async run(_m: Model, r: Real) {
      const res = await post(r, this.quantity, this.action);
      expect([400, 422]).toContain(res.status);
    }
    toString = () =>
      `Invalid(${JSON.stringify(this.quantity)}, ${JSON.stringify(this.action)})`;
  }

  const currentTotal = async (r: Real): Promise<number> => {
    const res = await api.get(
      `/v1/subscription-items/${r.itemId}/current-usage`,
    );
    expect(res.status).toBe(200);
    return res.body.meta.quantity as number;
  };

  const checkInvariants = async (m: Model, r: Real) => {
    expect(await currentTotal(r)).toBe(m.total);
    const [row] = await t.app
      .get(DataSource)
      .query(
        `SELECT count(*)::int AS n FROM usage_records WHERE subscription_item_id = $1`,
        [r.itemId],
      );
    expect(row.n).toBe(m.records);
  };

  it('parallel increments, racing sets and repeated Idempotency-Keys keep the total exact', async () => {
    const quantity = fc.integer({ min: 1, max: 1000 });
    const commands = fc.commands(
      [
        fc
          .array(quantity, { minLength: 1, maxLength: 8 })
          .map((qs) => new Increments(qs)),
        fc
          .tuple(quantity, fc.array(quantity, { minLength: 1, maxLength: 5 }))
          .map(([v, qs]) => new SetAmid(v, qs)),
        fc
          .tuple(quantity, fc.integer({ min: 2, max: 5 }))
          .map(([q, k]) => new Idempotent(q, k)),
        fc
          .tuple(
            fc.constantFrom(
              0,
              -1,
              1.5,
              '3.5',
              'three',
              null,
              2 ** 31,
              true,
              [],
              {},
            ),
            fc.constantFrom(undefined, 'increment', 'set'),
          )
          .map(([q, a]) => new Invalid(q, a)),
        fc
          .tuple(fc.constant(1), fc.constantFrom('add', '', 'SET', 7))
          .map(([q, a]) => new Invalid(q, a)),
      ],
      { maxCommands: 8 },
    );
    await fc.assert(
      fc.asyncProperty(commands, async (cmds) => {
        stats.runs++;
        const { subscription } = await buySubscription(
          t.baseUrl,
          merchant.testKey,
          merchant.stores[0].id,
          {
            unit_price: null,
            unit_price_decimal: '0.5',
            usage_aggregation: 'sum',
          },
        );
        const item = subscription.attributes.first_subscription_item as {
          id: number;
        };
        const model: Model = { total: 0, records: 0 };
        const real: Real = { itemId: String(item.id) };
        const checked = [...cmds].map((cmd) => ({
          check: (m: Readonly<Model>) => cmd.check(m),
          run: async (m: Model, r: Real) => {
            await cmd.run(m, r);
            await checkInvariants(m, r);
          },
          toString: () => cmd.toString(),
        }));
        await fc.asyncModelRun(() => ({ model, real }), checked);
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
  });
});
