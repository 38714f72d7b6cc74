import { DataSource, QueryRunner } from 'typeorm';
import { formatInvoiceNumber } from '../../src/modules/store/invoice-numbers';
import { outboxEvents } from '../support/billing';
import { buy, buyNowUrl } from '../support/commerce';
import { createMerchant, createPricedProduct } from '../support/factories';
import { startTestApp, TestApp } from '../support/test-app';

/** The advisory lock the stalling trigger waits for. */
const STALL_LOCK = 727_001;

async function waitFor(
  read: () => Promise<boolean>,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await read())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Whether `promise` settles within `ms`. */
async function settlesWithin(promise: Promise<unknown>, ms: number) {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const settled = await Promise.race([
    promise.then(
      () => true,
      () => true,
    ),
    timeout,
  ]);
  clearTimeout(timer);
  return settled;
}

/**
 * A sale's invoice number is drawn by the last statement of the
 * transaction that settles it, so the store's counter row is locked only
 * from there to the commit: a purchase whose settlement is slow (here its
 * subscription's insert waits on a lock this test holds) does not hold up
 * the store's other purchases. The numbers stay gap-free.
 */
const withServer = process.env.DATABASE_URL ? describe : describe.skip;
withServer('the invoice-number lock', () => {
  let t: TestApp;
  let db: DataSource;
  let key: string;
  const year = new Date().getUTCFullYear();
  const number = (n: number) => formatInvoiceNumber(true, year, n);

  beforeAll(async () => {
    t = await startTestApp();
    db = t.app.get(DataSource);
  });
  afterAll(async () => {
    await t?.close();
  });

  async function storeWithProducts() {
    const merchant = await createMerchant(t.app, ['Lock Goods']);
    key = merchant.testKey;
    const storeId = merchant.stores[0].id;
    const plan = await createPricedProduct(
      t.baseUrl,
      key,
      storeId,
      {
        category: 'subscription',
        unit_price: 900,
        renewal_interval_unit: 'month',
        renewal_interval_quantity: 1,
      },
      { name: 'Plan' },
    );
    const sticker = await createPricedProduct(
      t.baseUrl,
      key,
      storeId,
      { unit_price: 500 },
      { name: 'Sticker' },
    );
    return {
      storeId,
      planId: Number(plan.product.id),
      planUrl: await buyNowUrl(t.baseUrl, key, plan.product.id),
      stickerUrl: await buyNowUrl(t.baseUrl, key, sticker.product.id),
    };
  }

  const orderOf = async (orderId: string) =>
    (
      (await db.query(
        `SELECT status, invoice_number FROM orders WHERE id = $1`,
        [Number(orderId)],
      )) as { status: string; invoice_number: string | null }[]
    )[0];

  it('lets other purchases of the store finish while one settlement is slow', async () => {
    const { storeId, planId, planUrl, stickerUrl } = await storeWithProducts();
    await db.query(`
      CREATE FUNCTION test_stall_subscription() RETURNS trigger
      LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.product_id = ${planId} THEN
          PERFORM pg_advisory_xact_lock(${STALL_LOCK});
        END IF;
        RETURN NEW;
      END $$`);
    await db.query(`
      CREATE TRIGGER test_stall_subscription BEFORE INSERT ON subscriptions
      FOR EACH ROW EXECUTE FUNCTION test_stall_subscription()`);
    const holder: QueryRunner = db.createQueryRunner();
    await holder.connect();
    try {
      await holder.query(`SELECT pg_advisory_lock($1)`, [STALL_LOCK]);
      const slow = buy(t.baseUrl, planUrl, { email: 'slow@example.com' });
      const slowDone = slow.then((r) => r);
      // The plan's settlement waits in its subscription insert.
      await waitFor(async () => {
        const rows = (await db.query(
          `SELECT count(*)::int AS n FROM pg_locks
            WHERE locktype = 'advisory' AND NOT granted AND objid = $1`,
          [STALL_LOCK],
        )) as { n: number }[];
        return rows[0].n > 0;
      });
      // Before: the slow settlement held the counter row, and this waited.
      const quick = buy(t.baseUrl, stickerUrl, { email: 'quick@example.com' });
      expect(await settlesWithin(quick.then(), 5_000)).toBe(true);
      const quickResponse = await quick;
      expect(quickResponse.status).toBe(201);
      expect(await settlesWithin(slowDone, 300)).toBe(false);
      await holder.query(`SELECT pg_advisory_unlock($1)`, [STALL_LOCK]);
      const slowResponse = await slowDone;
      expect(slowResponse.status).toBe(201);

      const quickOrder = await orderOf(quickResponse.body.data.id);
      const slowOrder = await orderOf(slowResponse.body.data.id);
      expect(quickOrder).toEqual({ status: 'paid', invoice_number: number(1) });
      expect(slowOrder).toEqual({ status: 'paid', invoice_number: number(2) });
      // The number the slow sale drew last is everywhere it was written.
      const [initial] = (await db.query(
        `SELECT i.invoice_number FROM subscription_invoices i
           JOIN subscriptions s ON s.id = i.subscription_id
          WHERE s.order_id = $1 AND i.billing_reason = 'initial'`,
        [Number(slowResponse.body.data.id)],
      )) as { invoice_number: string }[];
      expect(initial.invoice_number).toBe(number(2));
      const events = await outboxEvents(t.app, storeId);
      const numbered = events
        .filter(
          (e) =>
            e.name === 'order_created' ||
            e.name === 'subscription_payment_success',
        )
        .map((e) => [e.name, e.attributes.invoice_number]);
      // By id: the slow sale recorded order_created before the quick one.
      expect(numbered).toEqual([
        ['order_created', number(2)],
        ['order_created', number(1)],
        ['subscription_payment_success', number(2)],
      ]);
      const texts = (await db.query(
        `SELECT data::text AS data FROM webhook_events WHERE store_id = $1`,
        [storeId],
      )) as { data: string }[];
      expect(texts.filter((row) => row.data.includes('pending-'))).toEqual([]);
    } finally {
      await holder.release();
      await db.query(
        `DROP TRIGGER IF EXISTS test_stall_subscription ON subscriptions`,
      );
      await db.query(`DROP FUNCTION IF EXISTS test_stall_subscription()`);
    }
  });

  it('numbers 20 parallel purchases 1..20 and gives a rolled-back one’s number back', async () => {
    const { storeId, planUrl, stickerUrl } = await storeWithProducts();
    // This buyer's settlement fails at its commit, after its number was drawn.
    await db.query(`
      CREATE FUNCTION test_refuse_commit() RETURNS trigger
      LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'refused at commit';
      END $$`);
    await db.query(`
      CREATE CONSTRAINT TRIGGER test_refuse_commit AFTER UPDATE ON orders
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
      WHEN (NEW.user_email = 'rollback@example.com' AND NEW.invoice_number IS NOT NULL)
      EXECUTE FUNCTION test_refuse_commit()`);
    try {
      const buyers = Array.from({ length: 20 }, (_, i) =>
        buy(t.baseUrl, i % 2 ? planUrl : stickerUrl, {
          email: `parallel-${i}@example.com`,
        }).then((r) => r),
      );
      const failing = buy(t.baseUrl, stickerUrl, {
        email: 'rollback@example.com',
      }).then((r) => r);
      const responses = await Promise.all(buyers);
      expect(responses.map((r) => r.status)).toEqual(Array(20).fill(201));
      const failed = await failing;
      expect(failed.status).toBeGreaterThanOrEqual(500);
      const rows = (await db.query(
        `SELECT user_email, status, invoice_number FROM orders
          WHERE store_id = $1 ORDER BY invoice_number`,
        [storeId],
      )) as { user_email: string; status: string; invoice_number: string }[];
      const paid = rows.filter((row) => row.status === 'paid');
      expect(paid.map((row) => row.invoice_number)).toEqual(
        Array.from({ length: 20 }, (_, i) => number(i + 1)),
      );
      expect(
        rows.find((row) => row.user_email === 'rollback@example.com'),
      ).toEqual({
        user_email: 'rollback@example.com',
        status: 'pending',
        invoice_number: null,
      });
      // Each event carries its own record's number, none a placeholder.
      const events = await outboxEvents(t.app, storeId);
      const orderNumbers = new Map(
        (
          (await db.query(
            `SELECT id, invoice_number FROM orders WHERE store_id = $1`,
            [storeId],
          )) as { id: number; invoice_number: string }[]
        ).map((row) => [String(row.id), row.invoice_number]),
      );
      const created = events.filter((e) => e.name === 'order_created');
      expect(created).toHaveLength(20);
      for (const event of created)
        expect(event.attributes.invoice_number).toBe(
          orderNumbers.get(event.id),
        );
      const payments = events.filter(
        (e) => e.name === 'subscription_payment_success',
      );
      expect(payments).toHaveLength(10);
      for (const event of payments)
        expect(event.attributes.invoice_number).toMatch(/^TEST-\d{4}-\d{6}$/);
    } finally {
      await db.query(`DROP TRIGGER IF EXISTS test_refuse_commit ON orders`);
      await db.query(`DROP FUNCTION IF EXISTS test_refuse_commit()`);
    }
  });
});
