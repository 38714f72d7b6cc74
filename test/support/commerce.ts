import request from 'supertest';

export const GOOD_CARD = '4242424242424242';
export const DECLINED_CARD = '4000000000000002';

export interface Buyer {
  email?: string;
  name?: string;
  billing_address?: { country?: string; zip?: string; state?: string };
  tax_number?: string;
  discount_code?: string;
  variant_id?: string | number;
  quantity?: number;
  card_number?: string;
  /** Pay what you want, in cents. */
  custom_price?: number | string;
  /** The page's field: refused on this path. */
  amount?: string;
}

/** Path and query of an absolute URL (checkout and receipt links are absolute). */
export function pathOf(url: string): string {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
}

/** The machine path of the hosted checkout: a JSON POST to a checkout or buy_now URL. */
export function buy(baseUrl: string, checkoutUrl: string, buyer: Buyer = {}) {
  return request(baseUrl)
    .post(pathOf(checkoutUrl))
    .set('Content-Type', 'application/json')
    .send({
      email: 'buyer@example.com',
      name: 'Bea Buyer',
      billing_address: { country: 'US', zip: '10001' },
      card_number: GOOD_CARD,
      ...buyer,
    });
}

/** The buy_now_url of a product (read over the API). */
export async function buyNowUrl(
  baseUrl: string,
  key: string,
  productId: string,
): Promise<string> {
  const response = await request(baseUrl)
    .get(`/v1/products/${productId}`)
    .set('Authorization', `Bearer ${key}`)
    .expect(200);
  return (response.body as { data: { attributes: { buy_now_url: string } } })
    .data.attributes.buy_now_url;
}
