import { randomBytes } from 'node:crypto';
import { INestApplicationContext } from '@nestjs/common';
import request from 'supertest';
import { Principal } from '../../src/common/principal';
import { ApiKeyMode } from '../../src/modules/account/api-key.entity';
import { ApiKeyService } from '../../src/modules/account/api-key.service';
import { UserService } from '../../src/modules/account/user.service';
import {
  CustomerService,
  CustomerView,
} from '../../src/modules/customer/customer.service';
import { Store } from '../../src/modules/store/store.entity';
import { StoreService } from '../../src/modules/store/store.service';

export interface Merchant {
  userId: number;
  testKey: string;
  liveKey: string;
  stores: Store[];
}

const unique = () => randomBytes(4).toString('hex');

/** A user with a test key, a live key and the given stores, built through the services. */
export async function createMerchant(
  app: INestApplicationContext,
  storeNames: string[] = ['Main Store'],
): Promise<Merchant> {
  const user = await app.get(UserService).create({
    email: `merchant-${unique()}@example.com`,
    name: 'Test Merchant',
  });
  const keys = app.get(ApiKeyService);
  const key = async (mode: ApiKeyMode) =>
    (await keys.create(user.id, mode)).key;
  const stores: Store[] = [];
  for (const name of storeNames) {
    stores.push(await app.get(StoreService).create({ userId: user.id, name }));
  }
  return {
    userId: user.id,
    testKey: await key('test'),
    liveKey: await key('live'),
    stores,
  };
}

/** A JSON:API resource object as the API returns it. */
export interface ApiResource {
  type: string;
  id: string;
  attributes: Record<string, unknown>;
  relationships?: Record<string, unknown>;
  links: { self: string };
}

/** POSTs a JSON:API document with `key` and returns the created resource (fails unless 201). */
export async function postResource(
  baseUrl: string,
  key: string,
  type: string,
  attributes: Record<string, unknown>,
  relationships: Record<string, { type: string; id: number | string }> = {},
): Promise<ApiResource> {
  const response = await fetch(`${baseUrl}/v1/${type}`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${key}`,
      Accept: 'application/vnd.api+json',
      'Content-Type': 'application/vnd.api+json',
    },
    body: JSON.stringify({
      data: {
        type,
        attributes,
        relationships: Object.fromEntries(
          Object.entries(relationships).map(([name, target]) => [
            name,
            { data: { type: target.type, id: String(target.id) } },
          ]),
        ),
      },
    }),
  });
  const body = (await response.json()) as { data: ApiResource };
  if (response.status !== 201) {
    throw new Error(
      `POST /v1/${type} answered ${response.status}: ${JSON.stringify(body)}`,
    );
  }
  return body.data;
}

/** PATCH /v1/stores/:id with these attributes, as `key`'s user; the response is the caller's to check. */
export function updateStore(
  baseUrl: string,
  key: string,
  storeId: number,
  attributes: Record<string, unknown>,
) {
  return request(baseUrl)
    .patch(`/v1/stores/${storeId}`)
    .set('Authorization', `Bearer ${key}`)
    .set('Content-Type', 'application/vnd.api+json')
    .send(
      JSON.stringify({
        data: { type: 'stores', id: String(storeId), attributes },
      }),
    );
}

/** A product over the API (with its pending default variant), published unless told otherwise. */
export function createProduct(
  baseUrl: string,
  key: string,
  storeId: number,
  attributes: Record<string, unknown> = {},
): Promise<ApiResource> {
  return postResource(
    baseUrl,
    key,
    'products',
    { name: `Product ${unique()}`, status: 'published', ...attributes },
    { store: { type: 'stores', id: storeId } },
  );
}

/** An extra (published) variant of a product over the API. */
export function createVariant(
  baseUrl: string,
  key: string,
  productId: number | string,
  attributes: Record<string, unknown> = {},
): Promise<ApiResource> {
  return postResource(
    baseUrl,
    key,
    'variants',
    { name: `Variant ${unique()}`, ...attributes },
    { product: { type: 'products', id: productId } },
  );
}

/** A price for a variant over the API: a one-time $10.00 price unless told otherwise. */
export function createPrice(
  baseUrl: string,
  key: string,
  variantId: number | string,
  attributes: Record<string, unknown> = {},
): Promise<ApiResource> {
  return postResource(
    baseUrl,
    key,
    'prices',
    { category: 'one_time', unit_price: 1000, ...attributes },
    { variant: { type: 'variants', id: variantId } },
  );
}

/** The id of a product's default variant (the one its creation made). */
export async function defaultVariantId(
  baseUrl: string,
  key: string,
  productId: number | string,
): Promise<string> {
  const response = await fetch(
    `${baseUrl}/v1/variants?filter[product_id]=${productId}&filter[status]=pending`,
    {
      headers: {
        Authorization: `Bearer ${key}`,
        Accept: 'application/vnd.api+json',
      },
    },
  );
  const body = (await response.json()) as { data: ApiResource[] };
  if (!body.data?.[0])
    throw new Error(`product ${productId} has no default variant`);
  return body.data[0].id;
}

/**
 * A published product whose default variant has a price: the smallest thing
 * a checkout can sell. Returns the product and the variant and price ids.
 */
export async function createPricedProduct(
  baseUrl: string,
  key: string,
  storeId: number,
  price: Record<string, unknown> = {},
  product: Record<string, unknown> = {},
): Promise<{ product: ApiResource; variantId: string; priceId: string }> {
  const created = await createProduct(baseUrl, key, storeId, product);
  const variantId = await defaultVariantId(baseUrl, key, created.id);
  const priced = await createPrice(baseUrl, key, variantId, price);
  return { product: created, variantId, priceId: priced.id };
}

export interface CustomerFields {
  testMode?: boolean;
  name?: string;
  email?: string;
  city?: string | null;
  region?: string | null;
  country?: string | null;
}

/** A customer of one of the merchant's stores, built through CustomerService. */
export async function createCustomer(
  app: INestApplicationContext,
  merchant: Merchant,
  store: Store = merchant.stores[0],
  fields: CustomerFields = {},
): Promise<CustomerView> {
  const principal: Principal = {
    userId: merchant.userId,
    apiKeyId: 0,
    testMode: fields.testMode ?? true,
  };
  return app.get(CustomerService).create(principal, {
    storeId: String(store.id),
    name: fields.name ?? 'Test Customer',
    email: fields.email ?? `customer-${unique()}@example.com`,
    city: fields.city,
    region: fields.region,
    country: fields.country,
  });
}
