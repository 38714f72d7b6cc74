import { Client } from 'pg';
import request from 'supertest';
import { buy, buyNowUrl } from '../support/commerce';
import {
  createMerchant,
  createPricedProduct,
  Merchant,
} from '../support/factories';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Deep numbered pages of one store's orders are keyset seeks from where an
 * earlier page found its orders (PagePositions), valid while the store's
 * kept order count is unchanged. Every page here is checked against the
 * list read straight from the database by OFFSET.
 */
describe('deep order pages from remembered positions', () => {
  const HISTORY = 1_300;
  let t: TestApp;
  let merchant: Merchant;
  let storeId: number;
  let buyUrl: string;
  let db: Client;

  beforeAll(async () => {
    t = await startTestApp();
    merchant = await createMerchant(t.app, ['Deep Store']);
    storeId = merchant.stores[0].id;
    const priced = await createPricedProduct(
      t.baseUrl,
      merchant.testKey,
      storeId,
      { unit_price: 900 },
      { name: 'Deep Pack' },
    );
    buyUrl = await buyNowUrl(t.baseUrl, merchant.testKey, priced.product.id);
    await buy(t.baseUrl, buyUrl).expect(201);
    db = new Client({ connectionString: t.database.url });
    await db.connect();
    await importHistory(db, storeId, HISTORY);
  });
  afterAll(async () => {
    await db.end();
    await t.close();
  });

  const ids = async (path: string, key = merchant.testKey) => {
    const response = await request(t.baseUrl)
      .get(path)
      .set('Authorization', `Bearer ${key}`)
      .expect(200);
    const body = response.body as {
      data: { id: string }[];
      meta: { page: { total: number } };
    };
    return { ids: body.data.map((r) => Number(r.id)), body };
  };
  const page = (n: number, sort = '', size = 10) =>
    `/v1/orders?filter[store_id]=${storeId}&page[size]=${size}&page[number]=${n}${sort ? `&sort=${sort}` : ''}`;
  /** The page by OFFSET, read from the database. */
  const truth = async (n: number, order: string, size = 10) =>
    (
      await db.query<{ id: number }>(
        `SELECT id FROM orders WHERE store_id = $1 AND test_mode
          ORDER BY ${order} LIMIT $2 OFFSET $3`,
        [storeId, size, (n - 1) * size],
      )
    ).rows.map((row) => row.id);
  const NEWEST = 'created_at DESC, id DESC';

  it('walks deep pages forwards, again and backwards as OFFSET would', async () => {
    // Page 100 is the first positioned one (offset 990 < 1,000 is not).
    for (const n of [100, 101, 102, 103, 103, 120, 121, 110, 101, 131, 132])
      expect((await ids(page(n))).ids).toEqual(await truth(n, NEWEST));
    // Past the end: empty, the total still the kept count.
    const past = await ids(page(200));
    expect(past.ids).toEqual([]);
    expect(past.body.meta.page.total).toBe(HISTORY + 1);
    // Other sizes, sorts and directions keep lists of their own.
    for (const n of [40, 41, 41])
      expect((await ids(page(n, 'created_at', 25))).ids).toEqual(
        await truth(n, 'created_at ASC, id ASC', 25),
      );
    for (const n of [120, 121])
      expect((await ids(page(n, '-order_number'))).ids).toEqual(
        await truth(n, 'order_number DESC, id DESC'),
      );
    // A sort on a column that changes is paged by offset every time.
    for (const n of [120, 121])
      expect((await ids(page(n, '-total'))).ids).toEqual(
        await truth(n, 'total DESC, id DESC'),
      );
  });

  it('sees every new order: a purchase moves every later page by one', async () => {
    const before = (await ids(page(115))).ids;
    expect(before).toEqual(await truth(115, NEWEST));
    await buy(t.baseUrl, buyUrl).expect(201);
    const after = await ids(page(115));
    expect(after.ids).toEqual(await truth(115, NEWEST));
    expect(after.ids.slice(1)).toEqual(before.slice(0, 9));
    expect((await ids(page(116))).ids).toEqual(await truth(116, NEWEST));
  });

  it('reads a remembered page from its position, and by offset once the count moves', async () => {
    const n = 125;
    const remembered = (await ids(page(n))).ids;
    expect(remembered).toEqual(await truth(n, NEWEST));
    // Behind the kept count's back (no purchase does this), the page's
    // first order moves to the top of the list: the seek starts from it.
    await db.query(
      `UPDATE orders SET created_at = now() + interval '1 day' WHERE id = $1`,
      [remembered[0]],
    );
    expect((await ids(page(n))).ids).toEqual(await truth(1, NEWEST));
    // A changed count (as any new order makes) and the page is exact again.
    await db.query(
      `UPDATE store_order_counters SET test_order_count = test_order_count + 1 WHERE store_id = $1`,
      [storeId],
    );
    expect((await ids(page(n))).ids).toEqual(await truth(n, NEWEST));
  });

  it("shows another merchant nothing of the store, nor disturbs its owner's pages", async () => {
    const outsider = await createMerchant(t.app);
    expect((await ids(page(110), outsider.testKey)).ids).toEqual([]);
    expect((await ids(page(110))).ids).toEqual(await truth(110, NEWEST));
  });

  it('answers parallel deep pages with new orders arriving, each page one of the list’s states', async () => {
    const pages = [105, 106, 107, 108, 109, 110, 111, 112];
    const results = await Promise.all([
      ...pages.map((n) => ids(page(n))),
      ...Array.from({ length: 4 }, () => buy(t.baseUrl, buyUrl).expect(201)),
    ]);
    // Each page is the list at some count between before and after the
    // purchases: its first order stands at its offset plus 0..4 new ones.
    const all = (
      await db.query<{ id: number }>(
        `SELECT id FROM orders WHERE store_id = $1 AND test_mode ORDER BY ${NEWEST}`,
        [storeId],
      )
    ).rows.map((row) => row.id);
    pages.forEach((n, i) => {
      const got = (results[i] as { ids: number[] }).ids;
      const at = all.indexOf(got[0]);
      const shift = at - (n - 1) * 10;
      expect(shift).toBeGreaterThanOrEqual(0);
      expect(shift).toBeLessThanOrEqual(4);
      expect(got).toEqual(all.slice(at, at + 10));
    });
  });
});

/**
 * `count` older paid orders of the store, copied from its one purchase a
 * minute apart, numbered and counted as purchases number and count them.
 */
async function importHistory(
  db: Client,
  storeId: number,
  count: number,
): Promise<void> {
  const columns = (
    await db.query<{ column_name: string }>(
      `SELECT column_name FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name = 'orders' AND column_name <> 'id'
        ORDER BY ordinal_position`,
    )
  ).rows.map((row) => row.column_name);
  const overrides: Record<string, string> = {
    identifier: 'gen_random_uuid()',
    // Seller invoice numbers are per sale; history from before has none.
    invoice_number: 'NULL',
    order_number: 'counter.last_order_number + g',
    created_at: `o.created_at - g * interval '1 minute'`,
    updated_at: `o.created_at - g * interval '1 minute'`,
    // Distinct totals, so that sorting by total is a real order.
    total: 'o.total + g',
  };
  await db.query('BEGIN');
  await db.query(
    `INSERT INTO orders (${columns.map((c) => `"${c}"`).join(', ')})
     SELECT ${columns.map((c) => overrides[c] ?? `o."${c}"`).join(', ')}
       FROM orders o, store_order_counters counter, generate_series(1, $2::int) g
      WHERE o.store_id = $1 AND counter.store_id = $1`,
    [storeId, count],
  );
  await db.query(
    `UPDATE store_order_counters
        SET last_order_number = last_order_number + $2::int,
            test_order_count = test_order_count + $2::int
      WHERE store_id = $1`,
    [storeId, count],
  );
  await db.query('COMMIT');
}
