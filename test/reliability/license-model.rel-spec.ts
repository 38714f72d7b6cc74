import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { DataSource } from 'typeorm';
import { createMerchant, Merchant } from '../support/factories';
import { issueLicenseKeys } from '../support/licensing';
import { startTestApp, TestApp } from '../support/test-app';
import { client, JsonResponse, no5xx } from './support/api';
import { closeAgent } from './support/http';
import { RUNS, report } from './support/runs';

/** The pure model of one license key. */
interface Model {
  limit: number | null;
  /** Live instance ids. */
  instances: string[];
  /** Instance ids deactivated earlier: deactivating again is a 404. */
  gone: string[];
  disabled: boolean;
  expired: boolean;
  /** The merchant lowered the limit below the usage: existing instances stay. */
  lowered: boolean;
}

interface Real {
  t: TestApp;
  licenseKey: string;
  keyId: number;
  license: ReturnType<typeof client>;
  admin: ReturnType<typeof client>;
}

const refused = (m: Model) => m.disabled || m.expired;
const room = (m: Model) =>
  m.limit === null ? Infinity : Math.max(0, m.limit - m.instances.length);

let stats = { commands: 0, requests: 0, runs: 0 };

async function activate(r: Real, name: string): Promise<JsonResponse> {
  stats.requests++;
  return no5xx(
    await r.license.post('/v1/licenses/activate', {
      license_key: r.licenseKey,
      instance_name: name,
    }),
    'activate',
  );
}

async function deactivate(r: Real, id: string): Promise<JsonResponse> {
  stats.requests++;
  return no5xx(
    await r.license.post('/v1/licenses/deactivate', {
      license_key: r.licenseKey,
      instance_id: id,
    }),
    'deactivate',
  );
}

/** Activations fired together: exactly min(k, room) succeed, never more. */
class ActivateBurst implements fc.AsyncCommand<Model, Real> {
  constructor(readonly k: number) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const responses = await Promise.all(
      Array.from({ length: this.k }, (_, i) => activate(r, `burst-${i}`)),
    );
    const ok = responses.filter((res) => res.status === 200);
    const expected = refused(m) ? 0 : Math.min(this.k, room(m));
    expect(ok.length).toBe(expected);
    for (const res of responses) {
      if (res.status === 200) expect(res.body.activated).toBe(true);
      else {
        expect(res.status).toBe(400);
        expect(res.body.activated).toBe(false);
      }
    }
    m.instances.push(...ok.map((res) => res.body.instance.id as string));
  }
  toString = () => `ActivateBurst(${this.k})`;
}

/** The same instance deactivated by several clients at once: one wins, the rest 404. */
class DeactivateBurst implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly pick: number,
    readonly k: number,
  ) {}
  check = (m: Readonly<Model>) => m.instances.length > 0;
  async run(m: Model, r: Real) {
    const id = m.instances[this.pick % m.instances.length];
    const responses = await Promise.all(
      Array.from({ length: this.k }, () => deactivate(r, id)),
    );
    const statuses = responses.map((res) => res.status).sort((a, b) => a - b);
    if (refused(m)) {
      expect(statuses).toEqual(Array(this.k).fill(400));
      return;
    }
    expect(statuses).toEqual([200, ...Array(this.k - 1).fill(404)]);
    m.instances = m.instances.filter((one) => one !== id);
    m.gone.push(id);
  }
  toString = () => `DeactivateBurst(${this.pick}, ${this.k})`;
}

/** Deactivating an unknown or already deactivated instance is a 404 and changes nothing. */
class DeactivateMissing implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const id = m.gone.length ? m.gone[this.pick % m.gone.length] : randomUUID();
    const res = await deactivate(r, id);
    expect(res.status).toBe(404);
    expect(res.body.deactivated).toBe(false);
  }
  toString = () => `DeactivateMissing(${this.pick})`;
}

/**
 * Activations and deactivations of distinct instances in one burst: the
 * outcome depends on the order, so the model accepts any count the order
 * allows and then follows what happened.
 */
class MixedBurst implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly activations: number,
    readonly deactivations: number,
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const leaving = m.instances.slice(0, this.deactivations);
    const [acts, deacts] = await Promise.all([
      Promise.all(
        Array.from({ length: this.activations }, (_, i) =>
          activate(r, `mixed-${i}`),
        ),
      ),
      Promise.all(leaving.map((id) => deactivate(r, id))),
    ]);
    if (refused(m)) {
      expect([...acts, ...deacts].every((res) => res.status === 400)).toBe(
        true,
      );
      return;
    }
    expect(deacts.every((res) => res.status === 200)).toBe(true);
    const won = acts.filter((res) => res.status === 200);
    expect(acts.every((res) => [200, 400].includes(res.status))).toBe(true);
    const least = Math.min(this.activations, room(m));
    const most =
      m.limit === null
        ? this.activations
        : Math.min(
            this.activations,
            Math.max(0, m.limit - m.instances.length + leaving.length),
          );
    expect(won.length).toBeGreaterThanOrEqual(least);
    expect(won.length).toBeLessThanOrEqual(most);
    m.instances = m.instances
      .filter((id) => !leaving.includes(id))
      .concat(won.map((res) => res.body.instance.id as string));
    m.gone.push(...leaving);
  }
  toString = () => `MixedBurst(${this.activations}, ${this.deactivations})`;
}

/** Validation: valid only when neither disabled nor expired (and the instance, if named, is live). */
class Validate implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number | null) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const id =
      this.pick === null
        ? undefined
        : m.instances.length
          ? m.instances[this.pick % m.instances.length]
          : randomUUID();
    stats.requests++;
    const res = no5xx(
      await r.license.post('/v1/licenses/validate', {
        license_key: r.licenseKey,
        ...(id ? { instance_id: id } : {}),
      }),
      'validate',
    );
    const unknownInstance = id !== undefined && !m.instances.includes(id);
    if (unknownInstance) expect(res.status).toBe(404);
    else if (refused(m)) expect(res.status).toBe(400);
    else expect(res.status).toBe(200);
    expect(res.body.valid).toBe(res.status === 200);
    if (res.body.license_key) {
      expect(res.body.license_key.activation_usage).toBe(m.instances.length);
      expect(res.body.license_key.status).toBe(statusOf(m));
    }
  }
  toString = () => `Validate(${this.pick})`;
}

/** Merchant changes over the API: disable, expire, change the limit. */
class Patch implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly change:
      { disabled: boolean } | { expired: boolean } | { limit: number | null },
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const attributes: Record<string, unknown> = {};
    if ('disabled' in this.change) attributes.disabled = this.change.disabled;
    if ('expired' in this.change)
      attributes.expires_at = this.change.expired
        ? '2000-01-01T00:00:00Z'
        : null;
    if ('limit' in this.change) attributes.activation_limit = this.change.limit;
    stats.requests++;
    const res = no5xx(
      await r.admin.patch(`/v1/license-keys/${r.keyId}`, {
        data: { type: 'license-keys', id: String(r.keyId), attributes },
      }),
      'patch',
    );
    expect(res.status).toBe(200);
    if ('disabled' in this.change) m.disabled = this.change.disabled;
    if ('expired' in this.change) m.expired = this.change.expired;
    if ('limit' in this.change) {
      m.limit = this.change.limit;
      if (m.limit !== null && m.instances.length > m.limit) m.lowered = true;
    }
  }
  toString = () => `Patch(${JSON.stringify(this.change)})`;
}

function statusOf(m: Model) {
  if (m.disabled) return 'disabled';
  if (m.expired) return 'expired';
  return m.instances.length ? 'active' : 'inactive';
}

/** After every command: the API and the rows agree with the model. */
async function checkInvariants(m: Model, r: Real) {
  const res = await r.admin.get(`/v1/license-keys/${r.keyId}`);
  expect(res.status).toBe(200);
  const attributes = res.body.data.attributes;
  expect(attributes.instances_count).toBe(m.instances.length);
  expect(attributes.status).toBe(statusOf(m));
  if (m.limit !== null && !m.lowered)
    expect(attributes.instances_count).toBeLessThanOrEqual(m.limit);
  const [row] = await r.t.app.get(DataSource).query(
    `SELECT k.instances_count AS counter,
            (SELECT count(*)::int FROM license_key_instances i WHERE i.license_key_id = k.id) AS rows,
            (SELECT array_agg(i.identifier::text ORDER BY i.identifier)
               FROM license_key_instances i WHERE i.license_key_id = k.id) AS ids
     FROM license_keys k WHERE k.id = $1`,
    [r.keyId],
  );
  expect(row.counter).toBe(m.instances.length);
  expect(row.rows).toBe(m.instances.length);
  expect(row.ids ?? []).toEqual([...m.instances].sort());
}

describe('license activations against a pure model', () => {
  let t: TestApp;
  let merchant: Merchant;

  beforeAll(async () => {
    t = await startTestApp({
      RATE_LIMIT_PER_MINUTE: '10000000',
      LICENSE_RATE_LIMIT_PER_MINUTE: '10000000',
    });
    merchant = await createMerchant(t.app, ['License Model Store']);
  });
  afterAll(async () => {
    report(
      'license model',
      `${stats.runs} runs, ${stats.commands} commands, ${stats.requests} License API/PATCH requests, 0 divergences`,
    );
    closeAgent();
    await t?.close();
  });

  it('activate / deactivate / validate / disable / expire / re-limit, with bursts, never diverge', async () => {
    const commands = fc.commands(
      [
        fc.integer({ min: 1, max: 6 }).map((k) => new ActivateBurst(k)),
        fc
          .tuple(fc.nat(), fc.integer({ min: 1, max: 4 }))
          .map(([pick, k]) => new DeactivateBurst(pick, k)),
        fc.nat().map((pick) => new DeactivateMissing(pick)),
        fc
          .tuple(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 0, max: 3 }))
          .map(([a, d]) => new MixedBurst(a, d)),
        fc.option(fc.nat()).map((pick) => new Validate(pick)),
        fc.boolean().map((disabled) => new Patch({ disabled })),
        fc.boolean().map((expired) => new Patch({ expired })),
        fc
          .option(fc.integer({ min: 0, max: 5 }), { freq: 4 })
          .map((limit) => new Patch({ limit })),
      ],
      { maxCommands: 12 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.option(fc.integer({ min: 1, max: 4 }), { freq: 5 }),
        commands,
        async (limit, cmds) => {
          stats.runs++;
          const [key] = await issueLicenseKeys(
            t,
            merchant,
            merchant.stores[0],
            {
              activationLimit: limit,
            },
          );
          const real: Real = {
            t,
            licenseKey: key.key,
            keyId: key.id,
            license: client(t.baseUrl),
            admin: client(t.baseUrl, merchant.testKey),
          };
          const model: Model = {
            limit,
            instances: [],
            gone: [],
            disabled: false,
            expired: false,
            lowered: false,
          };
          const checked = [...cmds].map((cmd) => ({
            check: (m: Readonly<Model>) => cmd.check(m),
            run: async (m: Model, r: Real) => {
              stats.commands++;
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
  });
});
