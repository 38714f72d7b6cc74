import request from 'supertest';
import {
  getAuthenticatedUser,
  getStore,
  listStores,
} from '@lemonsqueezy/lemonsqueezy.js';
import { createMerchant, Merchant } from '../support/factories';
import { useSdkAgainst } from '../support/sdk';
import { startTestApp, TestApp } from '../support/test-app';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

describe('stores and users', () => {
  let t: TestApp;
  let merchant: Merchant;
  let other: Merchant;

  beforeAll(async () => {
    t = await startTestApp();
    merchant = await createMerchant(t.app, [
      'Zeta Goods',
      'Alpha Books',
      'Mid Market',
    ]);
    other = await createMerchant(t.app, ['Other Store']);
  });
  afterAll(() => t.close());

  const get = (path: string, key = merchant.testKey) =>
    request(t.baseUrl)
      .get(path)
      .set('Authorization', `Bearer ${key}`)
      .set('Accept', 'application/vnd.api+json');

  it('lists only the key owner’s stores, ordered by name, with the exact attribute set', async () => {
    const response = await get('/v1/stores?include=').expect(200);
    expect(response.headers['content-type']).toMatch(
      /^application\/vnd\.api\+json/,
    );
    expect(response.headers['x-request-id']).toBeDefined();
    const names = response.body.data.map(
      (s: { attributes: { name: string } }) => s.attributes.name,
    );
    expect(names).toEqual(['Alpha Books', 'Mid Market', 'Zeta Goods']);
    const store = response.body.data[0];
    // The spec's 15, Zest's `stripe` (whether Stripe is connected) and
    // seller identity (legal_name, legal_address, tax_numbers).
    expect(Object.keys(store.attributes)).toHaveLength(19);
    expect(store.attributes.stripe).toEqual({
      mode: 'test',
      configured: false,
    });
    expect(store.attributes.created_at).toMatch(TIMESTAMP);
    expect(store.links.self).toBe(`${t.baseUrl}/v1/stores/${store.id}`);
    expect(Object.keys(store.relationships)).toEqual([
      'products',
      'orders',
      'subscriptions',
      'discounts',
      'license-keys',
      'webhooks',
    ]);
    expect(response.body.meta.page).toEqual({
      currentPage: 1,
      from: 1,
      lastPage: 1,
      perPage: 10,
      to: 3,
      total: 3,
    });
    expect(response.body.links.next).toBeUndefined();
  });

  it('pages with URL-encoded links carrying page and sort', async () => {
    const response = await get('/v1/stores?page[number]=2&page[size]=1').expect(
      200,
    );
    expect(
      response.body.data.map(
        (s: { attributes: { name: string } }) => s.attributes.name,
      ),
    ).toEqual(['Mid Market']);
    expect(response.body.meta.page).toEqual({
      currentPage: 2,
      from: 2,
      lastPage: 3,
      perPage: 1,
      to: 2,
      total: 3,
    });
    expect(response.body.links).toEqual({
      first: `${t.baseUrl}/v1/stores?page%5Bnumber%5D=1&page%5Bsize%5D=1&sort=name`,
      last: `${t.baseUrl}/v1/stores?page%5Bnumber%5D=3&page%5Bsize%5D=1&sort=name`,
      next: `${t.baseUrl}/v1/stores?page%5Bnumber%5D=3&page%5Bsize%5D=1&sort=name`,
      prev: `${t.baseUrl}/v1/stores?page%5Bnumber%5D=1&page%5Bsize%5D=1&sort=name`,
    });
    const descending = await get('/v1/stores?sort=-name').expect(200);
    expect(descending.body.data[0].attributes.name).toBe('Zeta Goods');
  });

  it('answers 404 for another user’s store, in either mode', async () => {
    const foreign = other.stores[0].id;
    await get(`/v1/stores/${foreign}`).expect(404);
    await get(`/v1/stores/${foreign}`, merchant.liveKey).expect(404);
    await get(`/v1/stores/${merchant.stores[0].id}`, merchant.liveKey).expect(
      200,
    );
    await get(`/v1/stores/${merchant.stores[0].id}/`).expect(200);
  });

  it('serves relationship links of registered types and 404s unknown relationships', async () => {
    await get(`/v1/stores/${merchant.stores[0].id}/nonsense`).expect(404);
    await get(`/v1/unknown-type/1/stores`).expect(404);
  });

  it('shows /v1/users/me with the key’s mode', async () => {
    const test = await get('/v1/users/me').expect(200);
    expect(test.body.meta).toEqual({ test_mode: true });
    expect(Object.keys(test.body.data.attributes)).toEqual([
      'name',
      'email',
      'color',
      'avatar_url',
      'has_custom_avatar',
      'createdAt',
      'updatedAt',
    ]);
    expect(test.body.links.self).toBe(
      `${t.baseUrl}/v1/users/${merchant.userId}`,
    );
    const live = await get('/v1/users/me', merchant.liveKey).expect(200);
    expect(live.body.meta).toEqual({ test_mode: false });
    await get(`/v1/users/${merchant.userId}`).expect(200);
    await get(`/v1/users/${other.userId}`).expect(404);
  });

  describe('through the official SDK', () => {
    let restore: () => void;
    beforeAll(() => {
      restore = useSdkAgainst(t.baseUrl, merchant.testKey);
    });
    afterAll(() => restore());

    it('getAuthenticatedUser, listStores and getStore work unchanged', async () => {
      const user = await getAuthenticatedUser();
      expect(user.error).toBeNull();
      expect(user.data?.data.attributes.email).toMatch(/@example\.com$/);
      expect(user.data?.meta.test_mode).toBe(true);

      const stores = await listStores({ page: { size: 2 } });
      expect(stores.error).toBeNull();
      expect(stores.data?.data).toHaveLength(2);
      expect(stores.data?.meta.page.total).toBe(3);

      const one = await getStore(merchant.stores[0].id);
      expect(one.error).toBeNull();
      expect(one.data?.data.attributes.name).toBe('Zeta Goods');

      const missing = await getStore(other.stores[0].id);
      expect(missing.statusCode).toBe(404);
    });
  });
});
