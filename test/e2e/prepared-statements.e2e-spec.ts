import request from 'supertest';
import { DataSource, QueryRunnerAlreadyReleasedError } from 'typeorm';
import { poolQuery, transactionQuery } from '../../src/database/pool-query';
import { buy, buyNowUrl } from '../support/commerce';
import { createMerchant, createPricedProduct } from '../support/factories';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * The statements a purchase and the single-record reads left prepared. With a pool of one
 * connection, this query runs on the connection those reads used (on the
 * embedded database every connection shares one session).
 */
async function preparedNames(t: TestApp): Promise<string[]> {
  const rows = await poolQuery<{ name: string }>(
    t.app.get(DataSource),
    `SELECT name FROM pg_prepared_statements ORDER BY name`,
    [],
  );
  return rows.map((row) => row.name);
}

/** Buys a product, then reads it and its order twice each. */
async function buyAndRead(t: TestApp) {
  const merchant = await createMerchant(t.app);
  const auth = `Bearer ${merchant.testKey}`;
  const { product } = await createPricedProduct(
    t.baseUrl,
    merchant.testKey,
    merchant.stores[0].id,
  );
  await buy(
    t.baseUrl,
    await buyNowUrl(t.baseUrl, merchant.testKey, product.id),
  ).expect(201);
  const orders = await request(t.baseUrl)
    .get('/v1/orders')
    .set('Authorization', auth)
    .expect(200);
  const orderId = orders.body.data[0].id as string;
  for (let round = 0; round < 2; round++) {
    const one = await request(t.baseUrl)
      .get(`/v1/products/${product.id}`)
      .set('Authorization', auth)
      .expect(200);
    expect(one.body.data.attributes.name).toBe(product.attributes.name);
    const order = await request(t.baseUrl)
      .get(`/v1/orders/${orderId}`)
      .set('Authorization', auth)
      .expect(200);
    expect(order.body.data.id).toBe(orderId);
  }
}

const describeWithServer = process.env.DATABASE_URL ? describe : describe.skip;

describeWithServer('prepared statements on a PostgreSQL server', () => {
  let t: TestApp;
  afterEach(() => t?.close());

  it('keeps the hot reads prepared on their connection, by name', async () => {
    t = await startTestApp({ DATABASE_POOL_SIZE: '1' });
    await buyAndRead(t);
    const names = await preparedNames(t);
    expect(names).toEqual(
      expect.arrayContaining([
        // The purchase: its offer, then its transaction's writes.
        'variants.by-uuid',
        'variants.siblings',
        'prices.current-of-product',
        'stores.by-id',
        'customers.insert-or-find',
        // (The order's number is drawn by a statement sent with the
        // COMMIT, as simple-protocol text: commitWith.)
        // The settlement once the payment went through: the attempt and the
        // order settled (each locked by its UPDATE), its event and receipt.
        'payment-attempts.settle-pending',
        'orders.settle-paid',
        'webhook-events.insert',
        'mail-messages.insert',
        // The reads.
        'orders.first-items-one',
        'orders.visible-one',
        'products.one-of-user',
        'products.variant-summaries-one',
      ]),
    );
    // The order, its item and its payment attempt, named after their
    // INSERT texts.
    expect(
      names.filter((name) =>
        /^(orders|order_items|payment_attempts)\.insert-\d+$/.test(name),
      ),
    ).toHaveLength(3);
  });

  it('fails the rest of a transaction whose connection was lost; none of it runs on another connection', async () => {
    t = await startTestApp();
    const dataSource = t.app.get(DataSource);
    await dataSource.query(`CREATE TABLE lost_transaction_probe (n integer)`);
    const attempt = dataSource.transaction(async (manager) => {
      const [{ pid }] = await transactionQuery<{ pid: number }>(
        manager,
        `SELECT pg_backend_pid() AS pid`,
        [],
        'probe.pid',
      );
      await poolQuery(dataSource, `SELECT pg_terminate_backend($1)`, [pid]);
      // The driver notices the closed connection and releases the runner.
      const deadline = Date.now() + 5000;
      while (!manager.queryRunner!.isReleased && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(manager.queryRunner!.isReleased).toBe(true);
      await transactionQuery(
        manager,
        `INSERT INTO lost_transaction_probe (n) VALUES (1)`,
        [],
        'probe.insert',
      );
    });
    await expect(attempt).rejects.toThrow(QueryRunnerAlreadyReleasedError);
    const rows = await poolQuery(
      dataSource,
      `SELECT n FROM lost_transaction_probe`,
      [],
    );
    expect(rows).toEqual([]);
  });

  it('prepares nothing with DATABASE_PREPARED_STATEMENTS=false', async () => {
    t = await startTestApp({
      DATABASE_POOL_SIZE: '1',
      DATABASE_PREPARED_STATEMENTS: 'false',
    });
    await buyAndRead(t);
    expect(await preparedNames(t)).toEqual([]);
  });
});

const describeEmbedded = process.env.DATABASE_URL ? describe.skip : describe;

describeEmbedded('prepared statements on the embedded database', () => {
  let t: TestApp;
  afterAll(() => t?.close());

  it('keeps the hot statements prepared, under names of each connection', async () => {
    t = await startTestApp();
    await buyAndRead(t);
    const names = await preparedNames(t);
    // Its connections share one session: the multiplexer prefixes each
    // connection's statement names (pglite-statement-names.ts).
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) expect(name).toMatch(/^c\d+:/);
    expect(names.map((name) => name.replace(/^c\d+:/, ''))).toEqual(
      expect.arrayContaining([
        'variants.by-uuid',
        'customers.insert-or-find',
        'payment-attempts.settle-pending',
        'orders.settle-paid',
        'webhook-events.insert',
        'orders.visible-one',
        'products.one-of-user',
      ]),
    );
  });
});
