import { INestApplicationContext } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { Clock } from '../../src/common/clock';
import { buy, buyNowUrl } from './commerce';
import { createPricedProduct } from './factories';

/** Stops the app's clock at `start`; returns a setter to move it. */
export function freezeClock(app: INestApplicationContext, start: Date) {
  let current = start;
  // Every service shares the one Clock instance.
  app.get(Clock).now = () => new Date(current);
  return (instant: Date) => {
    current = instant;
  };
}

/** A published product whose default variant has a subscription price, bought over the hosted checkout. */
export async function buySubscription(
  baseUrl: string,
  key: string,
  storeId: number,
  price: Record<string, unknown>,
  buyer: Record<string, unknown> = {},
  productAttributes: Record<string, unknown> = {},
) {
  const { product, variantId, priceId } = await createPricedProduct(
    baseUrl,
    key,
    storeId,
    {
      category: 'subscription',
      renewal_interval_unit: 'month',
      renewal_interval_quantity: 1,
      ...price,
    },
    productAttributes,
  );
  const url = await buyNowUrl(baseUrl, key, product.id);
  const purchase = await buy(baseUrl, url, buyer);
  if (purchase.status !== 201) {
    throw new Error(
      `purchase answered ${purchase.status}: ${JSON.stringify(purchase.body)}`,
    );
  }
  const orderId = (purchase.body as { data: { id: string } }).data.id;
  const list = await request(baseUrl)
    .get(`/v1/subscriptions?filter[order_id]=${orderId}`)
    .set('Authorization', `Bearer ${key}`)
    .expect(200);
  const subscription = (
    list.body as { data: { id: string; attributes: Record<string, unknown> }[] }
  ).data[0];
  return { productId: product.id, variantId, priceId, orderId, subscription };
}

/** Outbox events recorded for a store, oldest first: what webhooks will deliver. */
export async function outboxEvents(
  app: INestApplicationContext,
  storeId: number,
): Promise<
  {
    name: string;
    type: string;
    id: string;
    attributes: Record<string, unknown>;
  }[]
> {
  const rows: {
    name: string;
    data: { type: string; id: string; attributes: Record<string, unknown> };
  }[] = await app
    .get(DataSource)
    .query(
      `SELECT name, data FROM webhook_events WHERE store_id = $1 ORDER BY id`,
      [storeId],
    );
  return rows.map((row) => ({
    name: row.name,
    type: row.data.type,
    id: row.data.id,
    attributes: row.data.attributes,
  }));
}
