import { redactUrl } from './logging';

describe('redactUrl', () => {
  it.each([
    ['/v1/stores', '/v1/stores'],
    [
      '/v1/orders?filter%5Bstore_id%5D=1&page%5Bnumber%5D=2&page[size]=10&sort=-created_at&include=store%2Ccustomer',
      '/v1/orders?filter%5Bstore_id%5D=1&page%5Bnumber%5D=2&page[size]=10&sort=-created_at&include=store%2Ccustomer',
    ],
    [
      '/r/abc?expires=1&signature=deadbeef',
      '/r/abc?expires=[Redacted]&signature=[Redacted]',
    ],
    ['/v1/stores?api_key=zest_test_abc', '/v1/stores?api_key=[Redacted]'],
    [
      '/v1/stores?key=x&token=y&access_token=z',
      '/v1/stores?key=[Redacted]&token=[Redacted]&access_token=[Redacted]',
    ],
    ['/v1/stores?sort=zest_live_abc', '/v1/stores?sort=[Redacted]'],
    ['/v1/stores?zest_live_abc', '/v1/stores?[Redacted]=[Redacted]'],
    [
      '/v1/orders?filter[user_email]=ada@example.com',
      '/v1/orders?filter[user_email]=[Redacted]',
    ],
    [
      '/v1/customers?filter%5Bemail%5D=ada%40example.com',
      '/v1/customers?filter%5Bemail%5D=[Redacted]',
    ],
    [
      '/v1/orders/1/generate-invoice?name=Ada&address=1%20Main&city=X&zip_code=1&country=US&notes=hi',
      '/v1/orders/1/generate-invoice?name=[Redacted]&address=[Redacted]&city=[Redacted]&zip_code=[Redacted]&country=[Redacted]&notes=[Redacted]',
    ],
    ['/v1/stores?filter[__proto__]=1', '/v1/stores?filter[__proto__]=1'],
  ])('%s', (url, logged) => {
    expect(redactUrl(url)).toBe(logged);
  });
});
