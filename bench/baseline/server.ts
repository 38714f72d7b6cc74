import Fastify from 'fastify';
import pg from 'pg';
import { formatMoney, refundedTax } from '../../src/common/money';
import { signUrl } from '../../src/common/signed-urls';
import { formatTimestamp } from '../../src/common/timestamps';
import { formatStatus } from '../../src/modules/catalog/catalog-format';
import { productPricing } from '../../src/modules/catalog/product-pricing';

/**
 * The bare baseline: plain Fastify + `pg`, no Nest, no ORM, no API keys or
 * rate limits. It answers the benchmark's single-record and list requests
 * with the same SQL scoping (the user's stores, the mode) and byte-for-byte
 * the same JSON:API documents as Zest, so the ratio between the two is the
 * price of the framework stack and of Zest's per-request work.
 *
 * Env: DATABASE_URL, PORT, PUBLIC_BASE_URL, CHECKOUT_BASE_URL, APP_KEY,
 * BENCH_USER_ID, BENCH_TEST_MODE (the principal a bench key would resolve to).
 */

const env = (name: string, fallback?: string): string => {
  const value = process.env[name] ?? fallback;
  if (value === undefined) throw new Error(`${name} is required`);
  return value;
};

const port = Number(env('PORT', '3100'));
const baseUrl = env('PUBLIC_BASE_URL', `http://127.0.0.1:${port}`);
const checkoutBaseUrl = env('CHECKOUT_BASE_URL', baseUrl);
const appKey = env('APP_KEY');
const userId = Number(env('BENCH_USER_ID'));
const testMode = env('BENCH_TEST_MODE', 'true') === 'true';

// pg returns NUMERIC as text; the API renders numbers.
pg.types.setTypeParser(pg.types.builtins.NUMERIC, Number);
const pool = new pg.Pool({
  connectionString: env('DATABASE_URL'),
  max: Number(env('DATABASE_POOL_SIZE', '10')),
});

const JSONAPI = { version: '1.0' };
const MEDIA = 'application/vnd.api+json; charset=utf-8';

// Rows as pg returns them: column name to value, rendered as-is (bare on purpose).
// oxlint-disable-next-line typescript/no-explicit-any
type Row = Record<string, any>;

function relationships(self: string, names: string[]) {
  const out: Record<string, { links: { related: string; self: string } }> = {};
  for (const name of names)
    out[name] = {
      links: {
        related: `${self}/${name}`,
        self: `${self}/relationships/${name}`,
      },
    };
  return out;
}

function productObject(product: Row, variants: Row[]) {
  const pricing = productPricing(
    variants.map((v) => ({
      id: v.id,
      productId: v.product_id,
      uuid: v.uuid,
      status: v.status,
      sort: v.sort,
      unitPrice:
        v.price_id === null
          ? null
          : (v.unit_price ?? v.tiers?.[0]?.unit_price ?? 0),
    })),
  );
  const money = (cents: number | null) =>
    cents === null ? null : formatMoney(cents, product.currency);
  const self = `${baseUrl}/v1/products/${product.id}`;
  return {
    type: 'products',
    id: String(product.id),
    attributes: {
      store_id: product.store_id,
      name: product.name,
      slug: product.slug,
      description: product.description,
      status: product.status,
      status_formatted: formatStatus(product.status),
      thumb_url: product.thumb_url,
      large_thumb_url: product.large_thumb_url,
      price: pricing.price,
      price_formatted: money(pricing.price),
      from_price: pricing.fromPrice,
      to_price: pricing.toPrice,
      from_price_formatted: money(pricing.fromPrice),
      to_price_formatted: money(pricing.toPrice),
      pay_what_you_want: product.pay_what_you_want,
      buy_now_url: pricing.buyNowVariantUuid
        ? `${checkoutBaseUrl}/checkout/buy/${pricing.buyNowVariantUuid}`
        : null,
      created_at: formatTimestamp(product.created_at),
      updated_at: formatTimestamp(product.updated_at),
      test_mode: product.test_mode,
    },
    relationships: relationships(self, ['store', 'variants']),
    links: { self },
  };
}

function variantObject(v: Row) {
  const self = `${baseUrl}/v1/variants/${v.id}`;
  const subscription = v.category === 'subscription';
  const pwyw = v.category === 'pwyw';
  return {
    type: 'variants',
    id: String(v.id),
    attributes: {
      product_id: v.product_id,
      name: v.name,
      slug: v.slug,
      description: v.description,
      links: v.links,
      has_license_keys: v.has_license_keys,
      license_activation_limit: v.license_activation_limit,
      is_license_limit_unlimited: v.is_license_limit_unlimited,
      license_length_value: v.license_length_value,
      license_length_unit: v.license_length_unit,
      is_license_length_unlimited: v.is_license_length_unlimited,
      sort: v.sort,
      status: v.status,
      status_formatted: formatStatus(v.status),
      created_at: formatTimestamp(v.created_at),
      updated_at: formatTimestamp(v.updated_at),
      test_mode: v.test_mode,
      price:
        v.price_id === null
          ? 0
          : (v.unit_price ?? v.tiers?.[0]?.unit_price ?? 0),
      is_subscription: subscription,
      interval: subscription ? v.renewal_interval_unit : null,
      interval_count: subscription ? v.renewal_interval_quantity : null,
      has_free_trial: subscription && v.trial_interval_unit !== null,
      trial_interval: subscription ? v.trial_interval_unit : null,
      trial_interval_count: subscription ? v.trial_interval_quantity : null,
      pay_what_you_want: pwyw,
      min_price: pwyw ? (v.min_price ?? 0) : 0,
      suggested_price: pwyw ? (v.suggested_price ?? 0) : 0,
      download_limit: v.download_limit,
      min_quantity: v.min_quantity,
      max_quantity: v.max_quantity,
    },
    relationships: relationships(self, ['product', 'files', 'price-model']),
    links: { self },
  };
}

const ORDER_STATUS: Record<string, string> = {
  pending: 'Pending',
  failed: 'Failed',
  paid: 'Paid',
  refunded: 'Refunded',
};

function orderObject(order: Row, item: Row | undefined) {
  const money = (cents: number) => formatMoney(cents, order.currency);
  const self = `${baseUrl}/v1/orders/${order.id}`;
  return {
    type: 'orders',
    id: String(order.id),
    attributes: {
      store_id: order.store_id,
      customer_id: order.customer_id,
      identifier: order.identifier,
      order_number: order.order_number,
      user_name: order.user_name,
      user_email: order.user_email,
      currency: order.currency,
      currency_rate: order.currency_rate,
      tax_name: order.tax_name,
      tax_rate: order.tax_rate,
      tax_inclusive: order.tax_inclusive,
      status: order.status,
      status_formatted: ORDER_STATUS[order.status],
      refunded: order.status === 'refunded',
      refunded_at: formatTimestamp(order.refunded_at),
      subtotal: order.subtotal,
      discount_total: order.discount_total,
      tax: order.tax,
      setup_fee: order.setup_fee,
      total: order.total,
      refunded_amount: order.refunded_amount,
      subtotal_usd: order.subtotal_usd,
      discount_total_usd: order.discount_total_usd,
      tax_usd: order.tax_usd,
      setup_fee_usd: order.setup_fee_usd,
      total_usd: order.total_usd,
      refunded_amount_usd: order.refunded_amount_usd,
      subtotal_formatted: money(order.subtotal),
      discount_total_formatted: money(order.discount_total),
      tax_formatted: money(order.tax),
      setup_fee_formatted: money(order.setup_fee),
      total_formatted: money(order.total),
      refunded_amount_formatted: money(order.refunded_amount),
      first_order_item: item
        ? {
            id: item.id,
            order_id: item.order_id,
            product_id: item.product_id,
            variant_id: item.variant_id,
            price_id: item.price_id,
            product_name: item.product_name,
            variant_name: item.variant_name,
            price: item.price,
            quantity: item.quantity,
            created_at: formatTimestamp(item.created_at),
            updated_at: formatTimestamp(item.updated_at),
            test_mode: item.test_mode,
          }
        : null,
      urls: {
        receipt: signUrl(
          appKey,
          checkoutBaseUrl,
          `/my-orders/${order.identifier}`,
        ),
      },
      created_at: formatTimestamp(order.created_at),
      updated_at: formatTimestamp(order.updated_at),
      test_mode: order.test_mode,
      dispute: order.dispute
        ? {
            status: order.dispute.status,
            reason: order.dispute.reason,
            amount: order.dispute.amount,
            created_at: order.dispute.createdAt,
          }
        : null,
      tax_note: order.tax_note,
      refunded_tax: refundedTax(order.tax, order.total, order.refunded_amount),
      tax_evidence: {
        billing_country: order.billing_country,
        billing_zip: order.billing_zip,
        billing_region: order.billing_region,
        tax_number: order.tax_number,
        tax_number_check: order.tax_number_check,
        rate_source: order.tax_rate_source,
      },
      invoice_number: order.invoice_number,
    },
    relationships: relationships(self, [
      'store',
      'customer',
      'order-items',
      'subscriptions',
      'license-keys',
      'discount-redemptions',
    ]),
    links: { self },
  };
}

async function firstItems(orderIds: number[]) {
  if (orderIds.length === 0) return new Map<number, Row>();
  const { rows } = await pool.query(
    `SELECT DISTINCT ON (order_id) * FROM order_items
      WHERE order_id = ANY($1) ORDER BY order_id, id`,
    [orderIds],
  );
  return new Map(rows.map((row: Row) => [row.order_id as number, row]));
}

const notFound = {
  jsonapi: JSONAPI,
  errors: [{ status: '404', title: 'Not Found', detail: 'Not found.' }],
};

const app = Fastify({ logger: false });

app.get<{ Params: { id: string } }>('/v1/products/:id', async (req, reply) => {
  void reply.type(MEDIA);
  const id = Number(req.params.id);
  const { rows } = await pool.query(
    `SELECT p.*, s.currency FROM products p JOIN stores s ON s.id = p.store_id
      WHERE p.id = $1 AND p.test_mode = $2 AND s.user_id = $3`,
    [id, testMode, userId],
  );
  if (rows.length === 0) return reply.code(404).send(notFound);
  const variants = await pool.query(
    `SELECT v.id, v.product_id, v.uuid, v.status, v.sort,
            p.id AS price_id, p.unit_price, p.tiers
       FROM variants v LEFT JOIN prices p ON p.id = v.current_price_id
      WHERE v.product_id = $1 ORDER BY v.sort, v.id`,
    [id],
  );
  const data = productObject(rows[0], variants.rows);
  return { jsonapi: JSONAPI, links: { self: data.links.self }, data };
});

/** The first products page with its variants included (`include=variants`). */
app.get<{ Querystring: Record<string, string> }>(
  '/v1/products',
  async (req, reply) => {
    void reply.type(MEDIA);
    const size = 10;
    const [page, count] = await Promise.all([
      pool.query(
        `SELECT p.*, s.currency FROM products p JOIN stores s ON s.id = p.store_id
          WHERE s.user_id = $1 AND p.test_mode = $2
          ORDER BY p.name, p.id LIMIT ${size}`,
        [userId, testMode],
      ),
      pool.query(
        `SELECT count(*)::int AS total FROM products p JOIN stores s ON s.id = p.store_id
          WHERE s.user_id = $1 AND p.test_mode = $2`,
        [userId, testMode],
      ),
    ]);
    const ids = page.rows.map((row: Row) => row.id as number);
    const variants = await pool.query(
      `SELECT v.*, p.id AS price_id, p.category, p.unit_price, p.tiers,
              p.renewal_interval_unit, p.renewal_interval_quantity,
              p.trial_interval_unit, p.trial_interval_quantity,
              p.min_price, p.suggested_price
         FROM variants v LEFT JOIN prices p ON p.id = v.current_price_id
        WHERE v.product_id = ANY($1) ORDER BY v.sort, v.id`,
      [ids],
    );
    const byProduct = new Map<number, Row[]>();
    for (const v of variants.rows as Row[]) {
      const list = byProduct.get(v.product_id as number) ?? [];
      list.push(v);
      byProduct.set(v.product_id as number, list);
    }
    const data = page.rows.map((row: Row) => {
      const object = productObject(row, byProduct.get(row.id) ?? []);
      const variantsOf = (byProduct.get(row.id) ?? []).map((v) => ({
        type: 'variants',
        id: String(v.id),
      }));
      return {
        ...object,
        relationships: {
          store: object.relationships.store,
          variants: { ...object.relationships.variants, data: variantsOf },
        },
      };
    });
    const total: number = count.rows[0].total;
    const lastPage = Math.max(1, Math.ceil(total / size));
    const link = (n: number) =>
      `${baseUrl}/v1/products?page%5Bnumber%5D=${n}&page%5Bsize%5D=${size}&sort=name`;
    const links: Record<string, string> = {
      first: link(1),
      last: link(lastPage),
    };
    if (lastPage > 1) links.next = link(2);
    return {
      meta: {
        page: {
          currentPage: 1,
          from: data.length > 0 ? 1 : 0,
          lastPage,
          perPage: size,
          to: data.length,
          total,
        },
      },
      jsonapi: JSONAPI,
      links,
      data,
      included: (variants.rows as Row[]).map(variantObject),
    };
  },
);

app.get<{ Params: { id: string } }>('/v1/orders/:id', async (req, reply) => {
  void reply.type(MEDIA);
  const { rows } = await pool.query(
    `SELECT * FROM orders WHERE id = $1 AND test_mode = $2
        AND store_id IN (SELECT id FROM stores WHERE user_id = $3)`,
    [Number(req.params.id), testMode, userId],
  );
  if (rows.length === 0) return reply.code(404).send(notFound);
  const items = await firstItems([rows[0].id]);
  const data = orderObject(rows[0], items.get(rows[0].id));
  return { jsonapi: JSONAPI, links: { self: data.links.self }, data };
});

app.get<{ Querystring: Record<string, string> }>(
  '/v1/orders',
  async (req, reply) => {
    void reply.type(MEDIA);
    const storeId = Number(req.query['filter[store_id]']);
    const number = Number(req.query['page[number]'] ?? '1');
    const size = Number(req.query['page[size]'] ?? '10');
    const where = `store_id IN (SELECT id FROM stores WHERE user_id = $1)
                   AND test_mode = $2 AND store_id = $3`;
    const [page, count] = await Promise.all([
      pool.query(
        `SELECT * FROM orders WHERE ${where}
          ORDER BY created_at DESC, id DESC LIMIT $4 OFFSET $5`,
        [userId, testMode, storeId, size, (number - 1) * size],
      ),
      // The store's order count as Zest keeps it (store_order_counters).
      pool.query(
        `SELECT coalesce(sum(c.${testMode ? 'test' : 'live'}_order_count), 0)::int AS total
           FROM store_order_counters c JOIN stores s ON s.id = c.store_id
          WHERE s.user_id = $1 AND c.store_id = $2`,
        [userId, storeId],
      ),
    ]);
    const items = await firstItems(page.rows.map((row: Row) => row.id));
    const data = page.rows.map((row: Row) =>
      orderObject(row, items.get(row.id)),
    );
    const total: number = count.rows[0].total;
    const lastPage = Math.max(1, Math.ceil(total / size));
    const from = data.length > 0 ? (number - 1) * size + 1 : 0;
    const link = (n: number) => {
      const params = new URLSearchParams();
      params.set('page[number]', String(n));
      params.set('page[size]', String(size));
      params.set('filter[store_id]', String(storeId));
      params.set('sort', '-createdAt');
      return `${baseUrl}/v1/orders?${params.toString()}`;
    };
    const links: Record<string, string> = {
      first: link(1),
      last: link(lastPage),
    };
    if (number < lastPage) links.next = link(number + 1);
    if (number > 1) links.prev = link(Math.min(number - 1, lastPage));
    return {
      meta: {
        page: {
          currentPage: number,
          from,
          lastPage,
          perPage: size,
          to: data.length > 0 ? from + data.length - 1 : 0,
          total,
        },
      },
      jsonapi: JSONAPI,
      links,
      data,
    };
  },
);

app.listen({ port, host: '127.0.0.1' }).then(
  () => process.send?.({ ready: true }),
  (error: unknown) => {
    process.stderr.write(`${String(error)}\n`);
    process.exit(1);
  },
);
process.once('SIGTERM', () => {
  void app
    .close()
    .then(() => pool.end())
    .then(() => process.exit(0));
});
