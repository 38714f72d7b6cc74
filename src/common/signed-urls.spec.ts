import { signPath, signUrl, verifyPath } from './signed-urls';

const KEY = 'k'.repeat(40);
const NOW = new Date('2026-11-21T12:00:00.000Z');
const LATER = new Date('2026-11-22T12:00:00.000Z');

const query = (path: string) =>
  new URLSearchParams(path.slice(path.indexOf('?') + 1));

describe('signed URLs', () => {
  it('accepts its own links, with and without expiry', () => {
    const plain = signPath(KEY, '/portal/customers/5');
    expect(plain).toMatch(/^\/portal\/customers\/5\?signature=[0-9a-f]{64}$/);
    expect(verifyPath(KEY, plain, NOW)).toBe('valid');

    const expiring = signPath(KEY, '/receipts/abc?locale=en', {
      expiresAt: LATER,
    });
    expect(query(expiring).get('expires')).toBe(String(LATER.getTime() / 1000));
    expect(query(expiring).get('locale')).toBe('en');
    expect(verifyPath(KEY, expiring, NOW)).toBe('valid');
  });

  it('builds absolute URLs on any base, signing only path and query', () => {
    const url = signUrl(
      KEY,
      'https://shop.example.com/',
      '/portal/customers/5',
      {
        expiresAt: LATER,
      },
    );
    expect(url).toMatch(
      /^https:\/\/shop\.example\.com\/portal\/customers\/5\?expires=\d+&signature=[0-9a-f]{64}$/,
    );
    const { pathname, search } = new URL(url);
    expect(verifyPath(KEY, pathname + search, NOW)).toBe('valid');
  });

  it('is insensitive to parameter order', () => {
    const signed = signPath(KEY, '/invoices/7?name=Ann%20Lee&city=Paris', {
      expiresAt: LATER,
    });
    const params = [...query(signed).entries()].reverse();
    const reordered = `/invoices/7?${new URLSearchParams(params).toString()}`;
    expect(reordered).not.toBe(signed);
    expect(verifyPath(KEY, reordered, NOW)).toBe('valid');
  });

  it('refuses a tampered path', () => {
    const signed = signPath(KEY, '/portal/customers/5');
    expect(
      verifyPath(KEY, signed.replace('/customers/5', '/customers/6'), NOW),
    ).toBe('invalid');
    expect(verifyPath(KEY, signed.replace('/portal/', '/Portal/'), NOW)).toBe(
      'invalid',
    );
  });

  it('refuses a changed, added or removed parameter', () => {
    const signed = signPath(KEY, '/invoices/7?name=Ann', { expiresAt: LATER });
    expect(verifyPath(KEY, signed.replace('name=Ann', 'name=Bob'), NOW)).toBe(
      'invalid',
    );
    expect(verifyPath(KEY, `${signed}&notes=x`, NOW)).toBe('invalid');
    expect(verifyPath(KEY, signed.replace('name=Ann&', ''), NOW)).toBe(
      'invalid',
    );
    const withoutExpiry = signed.replace(/expires=\d+&/, '');
    expect(verifyPath(KEY, withoutExpiry, NOW)).toBe('invalid');
  });

  it('reports an edited expiry as invalid and a passed one as expired', () => {
    const signed = signPath(KEY, '/portal/customers/5', { expiresAt: LATER });
    const seconds = LATER.getTime() / 1000;
    expect(
      verifyPath(
        KEY,
        signed.replace(`expires=${seconds}`, `expires=${seconds + 3600}`),
        NOW,
      ),
    ).toBe('invalid');
    expect(verifyPath(KEY, signed, LATER)).toBe('expired');
    expect(verifyPath(KEY, signed, new Date(LATER.getTime() - 1000))).toBe(
      'valid',
    );
  });

  it('refuses another key’s signature', () => {
    const signed = signPath('x'.repeat(40), '/portal/customers/5');
    expect(verifyPath(KEY, signed, NOW)).toBe('invalid');
  });

  it('refuses missing, duplicated and malformed signatures', () => {
    const signed = signPath(KEY, '/portal/customers/5');
    const signature = query(signed).get('signature')!;
    expect(verifyPath(KEY, '/portal/customers/5', NOW)).toBe('invalid');
    expect(verifyPath(KEY, `${signed}&signature=${signature}`, NOW)).toBe(
      'invalid',
    );
    expect(
      verifyPath(KEY, signed.replace(signature, signature.toUpperCase()), NOW),
    ).toBe('invalid');
    expect(
      verifyPath(KEY, signed.replace(signature, signature.slice(2)), NOW),
    ).toBe('invalid');
    expect(verifyPath(KEY, 'portal/customers/5', NOW)).toBe('invalid');
    expect(verifyPath(KEY, '//evil.example/x', NOW)).toBe('invalid');
  });

  it('re-signing replaces an old signature and expiry', () => {
    const first = signPath(KEY, '/portal/customers/5', { expiresAt: NOW });
    const second = signPath(KEY, first, { expiresAt: LATER });
    expect(query(second).getAll('signature')).toHaveLength(1);
    expect(query(second).getAll('expires')).toEqual([
      String(LATER.getTime() / 1000),
    ]);
    expect(verifyPath(KEY, second, NOW)).toBe('valid');
  });
});
