import fc from 'fast-check';
import { RouteTable } from '../../src/http/json-api/route-table';
import { startTestApp, TestApp } from '../support/test-app';
import { WriteAudit } from './support/audit';
import { buildFixture, Fixture } from './support/fixture';
import {
  closeAgent,
  errorShapeProblem,
  RawResponse,
  rawRequest,
} from './support/http';
import { RUNS, report } from './support/runs';
import { DataSource } from 'typeorm';

/**
 * Every route the server registers. The first test checks this list against
 * the server's own route table, so a new route fails here until it is fuzzed.
 */
const ROUTES = [
  'GET /health/live',
  'GET /health/ready',
  'GET /metrics',
  'GET /v1/openapi.json',
  'GET /docs',
  'GET /docs/:asset',
  'GET /v1/users/me',
  'GET /v1/users/:id',
  'GET /v1/stores',
  'POST /v1/stores',
  'GET /v1/stores/:id',
  'PATCH /v1/stores/:id',
  'GET /v1/products',
  'POST /v1/products',
  'GET /v1/products/:id',
  'PATCH /v1/products/:id',
  'GET /v1/variants',
  'POST /v1/variants',
  'GET /v1/variants/:id',
  'PATCH /v1/variants/:id',
  'GET /v1/prices',
  'POST /v1/prices',
  'GET /v1/prices/:id',
  'GET /v1/files',
  'POST /v1/files',
  'GET /v1/files/:id',
  'PATCH /v1/files/:id',
  'DELETE /v1/files/:id',
  'POST /v1/files/uploads',
  'PATCH /v1/files/uploads/:id',
  'DELETE /v1/files/uploads/:id',
  'GET /downloads/:identifier',
  'GET /v1/customers',
  'POST /v1/customers',
  'GET /v1/customers/:id',
  'PATCH /v1/customers/:id',
  'GET /portal/customers/:id',
  'GET /v1/orders',
  'GET /v1/orders/:id',
  'POST /v1/orders/:id/refund',
  'GET /v1/order-items',
  'GET /v1/order-items/:id',
  'GET /v1/checkouts',
  'POST /v1/checkouts',
  'GET /v1/checkouts/:id',
  'GET /checkout/:kind/:id',
  'POST /checkout/:kind/:id',
  'GET /my-orders/:identifier',
  'GET /my-orders/:identifier/return',
  'GET /v1/discounts',
  'POST /v1/discounts',
  'GET /v1/discounts/:id',
  'DELETE /v1/discounts/:id',
  'GET /v1/discount-redemptions',
  'GET /v1/discount-redemptions/:id',
  'GET /v1/subscriptions',
  'GET /v1/subscriptions/:id',
  'PATCH /v1/subscriptions/:id',
  'DELETE /v1/subscriptions/:id',
  'GET /v1/subscription-items',
  'GET /v1/subscription-items/:id',
  'PATCH /v1/subscription-items/:id',
  'GET /v1/subscription-items/:id/current-usage',
  'GET /v1/subscription-invoices',
  'GET /v1/subscription-invoices/:id',
  'POST /v1/subscription-invoices/:id/refund',
  'GET /portal/subscriptions/:id',
  'GET /portal/subscriptions/:id/payment-method',
  'POST /portal/subscriptions/:id/payment-method',
  'POST /portal/subscriptions/:id/payment-method/setup',
  'GET /portal/subscriptions/:id/payment-method/return',
  'GET /portal/sign-in',
  'POST /portal/sign-in',
  'POST /portal/subscriptions/:id/cancel',
  'POST /portal/subscriptions/:id/resume',
  'POST /portal/subscriptions/:id/plan/preview',
  'POST /portal/subscriptions/:id/plan',
  'POST /portal/subscriptions/:id/quantity',
  'POST /portal/customers/:id/billing',
  'POST /portal/license-keys/:id/instances/:instance/deactivate',
  'GET /v1/tax-reports',
  'GET /v1/usage-records',
  'POST /v1/usage-records',
  'GET /v1/usage-records/:id',
  'POST /v1/:type/:id/generate-invoice',
  'GET /invoices/:type/:id',
  'GET /v1/license-keys',
  'GET /v1/license-keys/:id',
  'PATCH /v1/license-keys/:id',
  'GET /v1/license-key-instances',
  'GET /v1/license-key-instances/:id',
  'POST /v1/licenses/activate',
  'POST /v1/licenses/validate',
  'POST /v1/licenses/deactivate',
  'GET /v1/emails',
  'GET /v1/emails/:id',
  'GET /dev/mailbox',
  'GET /dev/mailbox/:id',
  'GET /dev/mailbox/:id/html',
  'GET /dev/mailbox/:id/text',
  'GET /dev/mailbox/:id/source',
  'GET /v1/webhooks',
  'POST /v1/webhooks',
  'GET /v1/webhooks/:id',
  'PATCH /v1/webhooks/:id',
  'DELETE /v1/webhooks/:id',
  'GET /v1/webhooks/:id/deliveries',
  'GET /v1/webhook-deliveries/:id',
  'POST /v1/webhook-deliveries/:id/resend',
  'POST /webhooks/stripe/:storeId',
  'GET /v1/:type/:id/relationships/:relationship',
  'GET /v1/:type/:id/:relationship',
];

const RESOURCE_TYPES = [
  'stores',
  'products',
  'variants',
  'prices',
  'files',
  'customers',
  'orders',
  'order-items',
  'checkouts',
  'discounts',
  'discount-redemptions',
  'subscriptions',
  'subscription-items',
  'subscription-invoices',
  'usage-records',
  'license-keys',
  'license-key-instances',
  'webhooks',
  'emails',
  'users',
];
const RELATIONSHIPS = [
  'store',
  'product',
  'variant',
  'variants',
  'price',
  'prices',
  'customer',
  'order',
  'order-items',
  'order-item',
  'subscriptions',
  'subscription-items',
  'subscription-item',
  'subscription-invoices',
  'license-keys',
  'license-key',
  'license-key-instances',
  'discount',
  'discount-redemptions',
  'files',
  'usage-records',
  'webhooks',
];
/** Names a lookup in a plain object would find on Object.prototype. */
const PROTOTYPE_NAMES = [
  '__proto__',
  'constructor',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  '__defineGetter__',
  '__lookupSetter__',
];

/** Integers around PostgreSQL's integer and bigint and JavaScript's safe range. */
const BOUNDARY_INTEGERS = [
  2 ** 31 - 1,
  2 ** 31,
  -(2 ** 31),
  -(2 ** 31) - 1,
  2 ** 32,
  2 ** 53 - 1,
  -(2 ** 53 - 1),
  2 ** 53,
  2 ** 63,
];

const QUERY_KEYS = [
  'page[number]',
  'page[size]',
  'include',
  'sort',
  'filter[store_id]',
  'filter[product_id]',
  'filter[variant_id]',
  'filter[order_id]',
  'filter[order_item_id]',
  'filter[customer_id]',
  'filter[subscription_id]',
  'filter[subscription_item_id]',
  'filter[license_key_id]',
  'filter[discount_id]',
  'filter[webhook_id]',
  'filter[status]',
  'filter[email]',
  'filter[user_email]',
  'filter[test_mode]',
  'signature',
  'expires',
  'name',
  'country',
  'zip_code',
  'locale',
  'notes',
  // Object.prototype's members, which a lookup in a plain object finds.
  ...PROTOTYPE_NAMES.map((name) => `filter[${name}]`),
];

/** Values that break naive parsers: type confusion, extremes, injections, control characters. */
const NASTY_STRINGS = [
  '',
  ' ',
  '0',
  '-1',
  '1.5',
  '1e3',
  '0x1f',
  '99999999999999999999999999',
  '9223372036854775808',
  '2147483648',
  '2147483647',
  '-2147483649',
  '9007199254740991',
  '9007199254740993',
  'null',
  'undefined',
  'true',
  '[]',
  '{}',
  '\u0000',
  'a\u0000b',
  '\u202e\u200b',
  '😀'.repeat(20),
  "1' OR '1'='1",
  '1; DROP TABLE stores; --',
  '../../../etc/passwd',
  '<script>alert(1)</script>',
  '%00',
  '2027-02-30T25:61:00Z',
  'x'.repeat(10_000),
  '-created_at,name,,',
  'store,store.orders,,',
];
const nastyString = fc.oneof(
  fc.constantFrom(...NASTY_STRINGS),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.integer().map(String),
  fc.bigInt().map(String),
);
const nastyValue: fc.Arbitrary<unknown> = fc.oneof(
  nastyString,
  fc.constantFrom(...BOUNDARY_INTEGERS),
  fc.constantFrom(...BOUNDARY_INTEGERS).map(String),
  fc.integer({ min: 2 ** 31, max: Number.MAX_SAFE_INTEGER }),
  fc.constantFrom(
    null,
    true,
    false,
    0,
    -1,
    1e308,
    -1e308,
    2 ** 53 + 1,
    0.1,
    [],
    {},
    [null],
    { $gt: '' },
  ),
  fc.integer(),
  fc.double({ noNaN: true }),
  fc.jsonValue({ maxDepth: 3 }),
);

/** Path segments: raw malformed escapes are sent as they are; generated text is percent-encoded. */
const MALFORMED_SEGMENTS = [
  '%',
  '%ZZ',
  '%E0%A4%A',
  '%C0%AF',
  '..',
  '%2e%2e',
  '%2F',
  '%00',
  '%FF%FE',
];

interface Case {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

function pathPattern(route: string) {
  const [method, pattern] = route.split(' ');
  const regex = new RegExp(
    `^${pattern.replace(/:[a-z]+/g, '[^/?]+')}(\\?.*)?$`,
  );
  return { method, pattern, regex };
}

/** The server's own routes, read from the route table the 405 handler uses. */
function serverRoutes(t: TestApp): string[] {
  const router = (
    t.app.get(RouteTable) as unknown as {
      router: { routes: { method: string; path: string }[] };
    }
  ).router;
  return router.routes
    .filter((route) => !['HEAD', 'OPTIONS'].includes(route.method))
    .map((route) => `${route.method} ${route.path.replace(/\/$/, '')}`)
    .filter((route) => !route.endsWith(' '));
}

describe('hostile input over every route', () => {
  let t: TestApp;
  let f: Fixture;
  let audit: WriteAudit;
  const totals = { cases: 0, s2xx: 0, s3xx: 0, s4xx: 0, s5xx: 0 };
  const failures: string[] = [];

  beforeAll(async () => {
    t = await startTestApp({
      // A 500 is logged with its stack (refusals are not logged at this level).
      LOG_LEVEL: 'error',
      RATE_LIMIT_PER_MINUTE: '10000000',
      LICENSE_RATE_LIMIT_PER_MINUTE: '10000000',
      AUTH_FAILURE_LIMIT_PER_MINUTE: '10000000',
      WEBHOOK_ALLOW_PRIVATE: 'true',
    });
    f = await buildFixture(t);
    audit = new WriteAudit(t.app.get(DataSource));
    // idempotency_keys stores refused responses for replay by design;
    // api_keys.last_used_at is bumped in the background on every request.
    await audit.install(['idempotency_keys', 'api_keys']);
  }, 120_000);

  afterAll(async () => {
    report(
      'hostile input',
      `${totals.cases} requests over ${ROUTES.length} routes: ${totals.s2xx} 2xx, ${totals.s3xx} 3xx, ${totals.s4xx} 4xx, ${totals.s5xx} 5xx; ${failures.length} failures`,
    );
    closeAgent();
    await t?.close();
  });

  it('fuzzes every route the server serves', () => {
    const served = new Set(serverRoutes(t));
    expect([...served].sort()).toEqual([...ROUTES].sort());
  });

  const ids = () => fc.constantFrom(...f.ids, ...f.tokens);
  const segment = (name: string): fc.Arbitrary<string> => {
    const generated = fc
      .oneof(nastyString, fc.uuid())
      .map((text) => encodeURIComponent(text));
    const known =
      name === 'type'
        ? fc.constantFrom(...RESOURCE_TYPES, 'orders', 'subscription-invoices')
        : name === 'relationship'
          ? fc.constantFrom(...RELATIONSHIPS)
          : name === 'kind'
            ? fc.constantFrom('buy', 'custom')
            : ids();
    return fc.oneof(
      { weight: 5, arbitrary: known },
      { weight: 3, arbitrary: generated },
      { weight: 1, arbitrary: fc.constantFrom(...MALFORMED_SEGMENTS) },
    );
  };

  const query = fc
    .array(
      fc.tuple(
        fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom(...QUERY_KEYS) },
          { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
        ),
        fc.oneof(
          fc.constantFrom(
            '1',
            '2',
            '100',
            '101',
            'store',
            'store,variants',
            '-created_at',
            'name',
            'active',
            'true',
          ),
          fc.constantFrom(...NASTY_STRINGS.slice(0, 25)),
          fc.string({ maxLength: 20 }),
        ),
        fc.boolean(),
      ),
      { maxLength: 4 },
    )
    .map((pairs) =>
      pairs
        .map(([key, value, rawBrackets]) => {
          const k = rawBrackets
            ? encodeURIComponent(key).replace(/%5B/g, '[').replace(/%5D/g, ']')
            : encodeURIComponent(key);
          return `${k}=${encodeURIComponent(value)}`;
        })
        .join('&'),
    );

  const headers = () =>
    fc.record({
      authorization: fc.oneof(
        { weight: 8, arbitrary: fc.constant(`Bearer ${f.merchant.testKey}`) },
        { weight: 1, arbitrary: fc.constant(`Bearer ${f.merchant.liveKey}`) },
        { weight: 1, arbitrary: fc.constant(`Bearer ${f.other.testKey}`) },
        { weight: 1, arbitrary: fc.constant(`Bearer ${f.revokedKey}`) },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            '',
            'Bearer',
            'Bearer ',
            'Basic Zm9vOmJhcg==',
            `bearer ${f.merchant.testKey}`,
            `Bearer ${f.merchant.testKey.slice(0, -1)}A`,
            `Bearer ${f.merchant.testKey} extra`,
            'Bearer zest_test_' + 'A'.repeat(43),
          ),
        },
        {
          weight: 1,
          arbitrary: fc
            .string({ maxLength: 80 })
            .map((s) => `Bearer ${s.replace(/[^\x20-\x7e]/g, '')}`),
        },
      ),
      'content-type': fc.constantFrom(
        'application/vnd.api+json',
        'application/vnd.api+json',
        'application/json',
        'application/vnd.api+json; charset=utf-8',
        'application/vnd.api+json; ext="https://x"',
        'application/x-www-form-urlencoded',
        'application/json; charset=latin1',
        'text/plain',
        'multipart/form-data; boundary=x',
        'application/xml',
        '',
      ),
      accept: fc.constantFrom(
        '*/*',
        'application/vnd.api+json',
        'application/json',
        'text/html',
        'application/xml',
        'application/vnd.api+json; ext=x',
      ),
      extra: fc.array(
        fc.tuple(
          fc.constantFrom(
            'idempotency-key',
            'x-forwarded-for',
            'x-forwarded-proto',
            'x-forwarded-host',
            'origin',
            'x-request-id',
            'if-none-match',
            'range',
          ),
          fc
            .oneof(
              fc.string({ maxLength: 300 }),
              fc.constantFrom('null', '::1', 'https', ''),
            )
            .map((s) => s.replace(/[^\x20-\x7e]/g, '').trim()),
        ),
        { maxLength: 3 },
      ),
    });

  /** A valid document (or form) for each write route, built from the fixture. */
  const templates = (): Record<string, () => Record<string, unknown>> => {
    const id = (table: string) => f.byTable[table]?.[0] ?? '1';
    const rel = (type: string, table: string) => ({
      data: { type, id: id(table) },
    });
    const doc = (
      type: string,
      attributes: Record<string, unknown>,
      relationships?: Record<string, unknown>,
      withId?: string,
    ) => ({
      data: {
        type,
        ...(withId ? { id: withId } : {}),
        attributes,
        ...(relationships ? { relationships } : {}),
      },
    });
    return {
      'POST /v1/stores': () => doc('stores', { name: 'Fuzz Store' }),
      'PATCH /v1/stores/:id': () =>
        doc('stores', { name: 'Renamed' }, undefined, id('stores')),
      'POST /v1/products': () =>
        doc(
          'products',
          { name: 'Fuzz', status: 'published' },
          { store: rel('stores', 'stores') },
        ),
      'PATCH /v1/products/:id': () =>
        doc('products', { name: 'Renamed' }, undefined, id('products')),
      'POST /v1/variants': () =>
        doc(
          'variants',
          { name: 'Fuzz' },
          { product: rel('products', 'products') },
        ),
      'PATCH /v1/variants/:id': () =>
        doc('variants', { name: 'Renamed' }, undefined, id('variants')),
      'POST /v1/prices': () =>
        doc(
          'prices',
          { category: 'one_time', unit_price: 1000 },
          { variant: rel('variants', 'variants') },
        ),
      'POST /v1/customers': () =>
        doc(
          'customers',
          { name: 'Fuzz', email: 'fuzz@example.com' },
          { store: rel('stores', 'stores') },
        ),
      'PATCH /v1/customers/:id': () =>
        doc('customers', { name: 'Renamed' }, undefined, id('customers')),
      'POST /v1/orders/:id/refund': () =>
        doc('orders', { amount: 100 }, undefined, id('orders')),
      'POST /v1/checkouts': () =>
        doc(
          'checkouts',
          { custom_price: 500 },
          {
            store: rel('stores', 'stores'),
            variant: rel('variants', 'variants'),
          },
        ),
      'POST /checkout/:kind/:id': () => ({
        email: 'fuzz@example.com',
        name: 'Fuzz Buyer',
        billing_address: { country: 'US', zip: '10001' },
        card_number: '4242424242424242',
        quantity: 1,
      }),
      'POST /v1/discounts': () =>
        doc(
          'discounts',
          { name: 'Fuzz', code: 'FUZZ10', amount: 10, amount_type: 'percent' },
          { store: rel('stores', 'stores') },
        ),
      'PATCH /v1/subscriptions/:id': () =>
        doc(
          'subscriptions',
          { pause: { mode: 'void' } },
          undefined,
          id('subscriptions'),
        ),
      'PATCH /v1/subscription-items/:id': () =>
        doc(
          'subscription-items',
          { quantity: 2 },
          undefined,
          id('subscription_items'),
        ),
      'POST /v1/subscription-invoices/:id/refund': () =>
        doc(
          'subscription-invoices',
          { amount: 1 },
          undefined,
          id('subscription_invoices'),
        ),
      'POST /portal/subscriptions/:id/payment-method': () => ({
        card_number: '4242424242424242',
      }),
      'POST /portal/sign-in': () => ({ email: 'fuzz@example.com' }),
      'POST /portal/subscriptions/:id/plan/preview': () => ({
        variant_id: '1',
      }),
      'POST /portal/subscriptions/:id/plan': () => ({ variant_id: '1' }),
      'POST /portal/subscriptions/:id/quantity': () => ({ quantity: '2' }),
      'POST /portal/customers/:id/billing': () => ({
        country: 'DE',
        zip: '10115',
      }),
      'POST /v1/usage-records': () =>
        doc(
          'usage-records',
          { quantity: 1, action: 'increment' },
          {
            'subscription-item': rel(
              'subscription-items',
              'subscription_items',
            ),
          },
        ),
      'POST /v1/:type/:id/generate-invoice': () => ({
        name: 'Ada',
        address: '1 Main St',
        country: 'US',
      }),
      'PATCH /v1/license-keys/:id': () =>
        doc(
          'license-keys',
          { activation_limit: 3 },
          undefined,
          id('license_keys'),
        ),
      'POST /v1/licenses/activate': () => ({
        license_key: f.licenseKeys[1],
        instance_name: 'fuzz',
      }),
      'POST /v1/licenses/validate': () => ({
        license_key: f.licenseKeys[0],
        instance_id: f.instanceIds[0],
      }),
      'POST /v1/licenses/deactivate': () => ({
        license_key: f.licenseKeys[0],
        instance_id: f.instanceIds[0],
      }),
      'POST /v1/webhooks': () =>
        doc(
          'webhooks',
          {
            url: 'http://127.0.0.1:9/fuzz',
            events: ['order_created'],
            secret: 'fuzz-secret-value',
          },
          { store: rel('stores', 'stores') },
        ),
      'PATCH /v1/webhooks/:id': () =>
        doc(
          'webhooks',
          { events: ['order_refunded'] },
          undefined,
          id('webhooks'),
        ),
    };
  };

  /** Bodies: the valid document, mutated one way or another, or no document at all. */
  const body = (route: string): fc.Arbitrary<string | undefined> => {
    const template = templates()[route];
    const base = template
      ? template()
      : { data: { type: 'x', attributes: {} } };
    const mutated = fc
      .tuple(
        fc.constantFrom(
          'as-is',
          'attribute',
          'drop',
          'extra',
          'type',
          'id',
          'relationship',
          'data',
          'root',
        ),
        nastyValue,
        fc.nat(),
        fc.oneof(
          fc.string({ maxLength: 10 }),
          fc.constantFrom(...PROTOTYPE_NAMES),
        ),
      )
      .map(([how, value, pick, name]) => {
        // oxlint-disable-next-line typescript/no-explicit-any
        const copy = structuredClone(base) as Record<string, any>;
        const target: Record<string, unknown> =
          (copy.data?.attributes as Record<string, unknown>) ?? copy;
        const keys = Object.keys(target);
        const key = keys.length ? keys[pick % keys.length] : name;
        switch (how) {
          case 'attribute':
            target[key] = value;
            break;
          case 'drop':
            delete target[key];
            break;
          case 'extra':
            // An own property even for `__proto__`, so it is sent.
            Object.defineProperty(target, name || 'unknown', {
              value,
              enumerable: true,
            });
            break;
          case 'type':
            if (copy.data) copy.data.type = value;
            else copy[key] = value;
            break;
          case 'id':
            if (copy.data) copy.data.id = value;
            break;
          case 'relationship':
            if (copy.data?.relationships && pick % 5 === 0) {
              // A relationship named like a member of Object.prototype.
              copy.data.relationships = JSON.parse(
                JSON.stringify(copy.data.relationships).replace(
                  /^\{/,
                  `{${JSON.stringify(PROTOTYPE_NAMES[pick % PROTOTYPE_NAMES.length])}:{"data":null},`,
                ),
              );
            } else if (copy.data?.relationships) {
              const rels = Object.keys(copy.data.relationships);
              const r = rels[pick % rels.length];
              copy.data.relationships[r] =
                pick % 2 ? value : { data: { type: r, id: value } };
            } else if (copy.data) copy.data.relationships = value;
            break;
          case 'data':
            copy.data = value;
            break;
          case 'root':
            return JSON.stringify(value);
        }
        return JSON.stringify(copy);
      });
    const raw = fc.constantFrom(
      '',
      '{',
      'null',
      '[]',
      '"data"',
      '{"data":' + '['.repeat(5000) + ']'.repeat(5000) + '}',
      '{"data":{"type":"x","attributes":{"amount":1e400}}}',
      '{"data":{"type":"x","attributes":{"amount":123456789012345678901234567890}}}',
      '{"data":{"type":"x","attributes":{"name":"a\\u0000b"}}}',
      '{"__proto__":{"polluted":true},"data":{"type":"x"}}',
      '{"constructor":{"prototype":{"polluted":true}}}',
      'license_key=x&instance_name=y',
      'a=1&a=2&b[c]=3',
      'email=a%40b.c&card_number=4242424242424242&billing_address[country]=US',
      '\u0000\u0001\u0002',
    );
    const form = fc
      .dictionary(
        fc.constantFrom(
          'license_key',
          'instance_name',
          'instance_id',
          'email',
          'name',
          'card_number',
          'quantity',
          'discount_code',
          'billing_address[country]',
          'variant_id',
        ),
        fc.oneof(
          fc.constantFrom(...f.licenseKeys, ...f.instanceIds),
          fc.string({ maxLength: 40 }),
        ),
      )
      .map((fields) => new URLSearchParams(fields).toString());
    return fc.oneof(
      { weight: 6, arbitrary: mutated },
      { weight: 2, arbitrary: raw },
      { weight: 1, arbitrary: form },
      {
        weight: 1,
        arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
      },
      { weight: 1, arbitrary: fc.constant(undefined) },
    );
  };

  const caseFor = (route: string): fc.Arbitrary<Case> => {
    const { method, pattern, regex } = pathPattern(route);
    const names = [...pattern.matchAll(/:([a-z]+)/g)].map((m) => m[1]);
    const generatedPath = fc
      .tuple(fc.tuple(...names.map((name) => segment(name))), query)
      .map(([values, q]) => {
        let i = 0;
        const path = pattern.replace(/:[a-z]+/g, () => values[i++]);
        return q ? `${path}?${q}` : path;
      });
    const seeds = f.signedPaths.filter((path) => regex.test(path));
    // Signed links as issued, and tampered: another query value, no signature, a flipped character.
    const signed = seeds.length
      ? fc
          .tuple(
            fc.constantFrom(...seeds),
            fc.nat(),
            query,
            fc.constantFrom('keep', 'flip', 'strip', 'append'),
          )
          .map(([seed, n, q, how]) => {
            if (how === 'keep') return seed;
            if (how === 'append')
              return `${seed}${seed.includes('?') ? '&' : '?'}${q || 'x=1'}`;
            if (how === 'strip')
              return seed.replace(/([?&])signature=[^&]*/, '$1');
            // Never the leading slash: that is no longer an HTTP request target.
            const at = 1 + (n % (seed.length - 1));
            const c = seed[at] === 'a' ? 'b' : 'a';
            return seed.slice(0, at) + c + seed.slice(at + 1);
          })
      : generatedPath;
    const otherMethod = fc.constantFrom(
      'GET',
      'POST',
      'PATCH',
      'DELETE',
      'PUT',
    );
    return fc
      .record({
        method: fc.oneof(
          { weight: 9, arbitrary: fc.constant(method) },
          { weight: 1, arbitrary: otherMethod },
        ),
        path: fc.oneof(
          { weight: 3, arbitrary: generatedPath },
          { weight: seeds.length ? 2 : 0, arbitrary: signed },
        ),
        h: headers(),
        body:
          method === 'GET'
            ? fc.option(body(route), { freq: 5 }).map((b) => b ?? undefined)
            : body(route),
      })
      .map(({ method: m, path, h, body: b }) => {
        const sent: Record<string, string> = {
          authorization: h.authorization,
          accept: h.accept,
        };
        if (b !== undefined && h['content-type'])
          sent['content-type'] = h['content-type'];
        for (const [name, value] of h.extra) sent[name] = value;
        if (!sent.authorization) delete sent.authorization;
        return { method: m, path, headers: sent, body: b };
      });
  };

  /**
   * On the embedded database the processors run in this process: the outbox
   * relay and webhook delivery update their own rows after earlier accepted
   * requests. With a database server they run in no process here.
   */
  const background = (row: { tbl: string; op: string }) =>
    t.database.embedded !== null &&
    ((row.tbl === 'webhook_events' && row.op === 'UPDATE') ||
      (row.tbl === 'webhooks' && row.op === 'UPDATE') ||
      row.tbl === 'webhook_deliveries' ||
      row.tbl === 'webhook_delivery_attempts');

  /** The audit mark after the last accepted request: a refusal must not move it. */
  let mark: number | null = null;
  const check = async (route: string, c: Case): Promise<string | null> => {
    const before = mark ?? (await audit.mark());
    let response: RawResponse;
    try {
      response = await rawRequest(
        t.baseUrl,
        c.method,
        c.path,
        c.headers,
        c.body,
      );
    } catch (error) {
      return `no response: ${(error as Error).message}`;
    }
    totals.cases++;
    const family = Math.floor(response.status / 100);
    if (family === 2) totals.s2xx++;
    else if (family === 3) totals.s3xx++;
    else if (family === 4) totals.s4xx++;
    else totals.s5xx++;
    mark = response.status < 400 ? null : before;
    if (response.status >= 500 || response.status < 200)
      return `${response.status}: ${response.text.slice(0, 300)}`;
    if (response.status >= 400) {
      const path = c.path.split('?')[0];
      const problem = errorShapeProblem(response, {
        plainLicense:
          /^\/v1\/licenses\/(activate|validate|deactivate)\/?$/.test(path),
        // Pages for people (hosted checkout, receipt, portal, downloads) answer HTML.
        // The development mailbox is a page for people too.
        htmlAllowed: /^\/(checkout|my-orders|portal|downloads|dev)\//.test(
          path,
        ),
      });
      if (problem) return `${response.status} ${problem}`;
      const written = (await audit.since(before)).filter(
        (row) => !background(row),
      );
      if (written.length)
        return `${response.status} but wrote ${JSON.stringify(written)}: ${response.text.slice(0, 200)}`;
    }
    return null;
  };

  it.each(ROUTES)(
    '%s: never 5xx, every refusal an error document that wrote nothing',
    async (route) => {
      const property = fc.asyncProperty(caseFor(route), async (c) => {
        const problem = await check(route, c);
        if (problem) {
          failures.push(`${route}: ${problem}`);
          throw new Error(
            `${problem}\n${c.method} ${c.path}\n${JSON.stringify(c.headers)}\n${(c.body ?? '').slice(0, 500)}`,
          );
        }
      });
      await fc.assert(property, { numRuns: RUNS, endOnFailure: true });
    },
  );

  describe('body limits', () => {
    const customer = (name: unknown) =>
      JSON.stringify({
        data: {
          type: 'customers',
          attributes: { name, email: 'limits@example.com' },
          relationships: {
            store: { data: { type: 'stores', id: '1' } },
          },
        },
      });
    const nested = (depth: number) =>
      `{"data":{"type":"customers","attributes":{"name":${'['.repeat(depth)}${']'.repeat(depth)}}}}`;
    const invalidUtf8 = Buffer.concat([
      Buffer.from('{"data":{"type":"customers","attributes":{"name":"'),
      Buffer.from([0xc3, 0x28, 0xff, 0xfe]),
      Buffer.from('"}}}'),
    ]);
    const bodies: [string, string | Buffer, number][] = [
      ['1 MiB + 1 byte', customer('x'.repeat(1024 * 1024)), 413],
      ['65 levels of nesting', nested(65), 400],
      ['100,000 levels of nesting', nested(100_000), 400],
      [
        'a number that overflows to Infinity (1e400)',
        customer(0).replace('0', '1e400'),
        400,
      ],
      [
        'an integer beyond 2^53',
        customer(0).replace('0', '123456789012345678901234567890'),
        400,
      ],
      ['a NUL escape in a string', customer('a\u0000b'), 400],
      ['a raw NUL byte', `{"data":\u0000}`, 400],
      ['invalid UTF-8', invalidUtf8, 400],
      ['an unpaired high surrogate escape', customer('a\ud800b'), 400],
      ['an unpaired low surrogate escape', customer('\udc00'), 400],
      ['a surrogate escape in a key', '{"data":{"\\ud800":1}}', 400],
    ];
    const targets: {
      name: string;
      path: string;
      contentType: string;
      plain?: boolean;
    }[] = [
      {
        name: 'JSON:API',
        path: '/v1/customers',
        contentType: 'application/vnd.api+json',
      },
      { name: 'JSON', path: '/v1/customers', contentType: 'application/json' },
      {
        name: 'License API',
        path: '/v1/licenses/activate',
        contentType: 'application/json',
        plain: true,
      },
      {
        name: 'hosted checkout',
        path: '/checkout/buy/x',
        contentType: 'application/json',
      },
    ];
    const cases = targets.flatMap((target) =>
      bodies.map(([what, payload, status]) => ({
        target,
        what,
        payload,
        status,
      })),
    );

    it.each(cases)(
      '$target.name: $what → $status, nothing written',
      async ({ target, payload, status }) => {
        const path =
          target.path === '/checkout/buy/x' ? pathOfBuyNow() : target.path;
        const before = await audit.mark();
        const response = await rawRequest(
          t.baseUrl,
          'POST',
          path,
          {
            authorization: `Bearer ${f.merchant.testKey}`,
            'content-type': target.contentType,
          },
          payload,
        );
        expect(response.status).toBe(status);
        expect(
          errorShapeProblem(response, { plainLicense: target.plain }),
        ).toBeNull();
        expect(await audit.since(before)).toEqual([]);
      },
    );

    const forms: [string, string | Buffer][] = [
      ['a NUL in a form field', 'license_key=a%00b&instance_name=x'],
      ['invalid UTF-8 in a form field', Buffer.from([0x6c, 0x3d, 0xc3, 0x28])],
      ['an escaped lone surrogate in a form field', 'license_key=a%ED%A0%80b'],
      ['a malformed escape in a form field', 'license_key=a%zzb'],
      ['__proto__ in a form', '__proto__=x&license_key=y'],
    ];
    it.each(forms)('License API form with %s → 400', async (_what, payload) => {
      const before = await audit.mark();
      const response = await rawRequest(
        t.baseUrl,
        'POST',
        '/v1/licenses/validate',
        { 'content-type': 'application/x-www-form-urlencoded' },
        payload,
      );
      expect(response.status).toBe(400);
      expect(errorShapeProblem(response, { plainLicense: true })).toBeNull();
      expect(await audit.since(before)).toEqual([]);
    });

    it('a NUL in a query parameter is a 400 naming the parameter (it never reaches PostgreSQL)', async () => {
      for (const path of [
        '/v1/customers?filter[email]=%00',
        '/v1/orders?filter[user_email]=a%00b',
        '/v1/stores?sort=%00',
      ]) {
        const response = await rawRequest(t.baseUrl, 'GET', path, {
          authorization: `Bearer ${f.merchant.testKey}`,
        });
        expect(response.status).toBe(400);
        expect(errorShapeProblem(response)).toBeNull();
        expect(JSON.parse(response.text).errors[0].source.parameter).toBe(
          path.split('?')[1].split('=')[0],
        );
      }
      const license = await rawRequest(
        t.baseUrl,
        'POST',
        '/v1/licenses/validate?x=%00',
        { 'content-type': 'application/json' },
        JSON.stringify({ license_key: f.licenseKeys[0] }),
      );
      expect(license.status).toBe(400);
      expect(errorShapeProblem(license, { plainLicense: true })).toBeNull();
    });

    it('a malformed escape or an over-long segment in the path is a JSON:API 400/414', async () => {
      for (const [path, status] of [
        ['/v1/stores/%E0%A4%A', 400],
        ['/v1/stores/%ZZ', 400],
        [`/v1/stores/${'1'.repeat(500)}`, 414],
      ] as const) {
        const response = await rawRequest(t.baseUrl, 'GET', path, {
          authorization: `Bearer ${f.merchant.testKey}`,
        });
        expect(response.status).toBe(status);
        expect(errorShapeProblem(response)).toBeNull();
      }
    });

    /** The buy-now link of the fixture's product (a real purchase target). */
    const pathOfBuyNow = () =>
      f.signedPaths.find((path) => path.startsWith('/checkout/buy/')) ??
      '/checkout/buy/x';
  });
});
