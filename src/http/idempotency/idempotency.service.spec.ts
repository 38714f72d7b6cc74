import { requestFingerprint } from './idempotency.service';

describe('requestFingerprint', () => {
  const body = { data: { type: 'x', attributes: { a: 1, b: [1, { c: 2 }] } } };

  it('ignores object key order and a trailing slash', () => {
    expect(requestFingerprint({ method: 'POST', url: '/v1/x', body })).toBe(
      requestFingerprint({
        method: 'POST',
        url: '/v1/x/',
        body: { data: { attributes: { b: [1, { c: 2 }], a: 1 }, type: 'x' } },
      }),
    );
  });

  it('tells apart method, path, query, array order and values', () => {
    const base = requestFingerprint({ method: 'POST', url: '/v1/x', body });
    for (const other of [
      { method: 'PATCH', url: '/v1/x', body },
      { method: 'POST', url: '/v1/y', body },
      { method: 'POST', url: '/v1/x?a=1', body },
      {
        method: 'POST',
        url: '/v1/x',
        body: { data: { type: 'x', attributes: { a: 1, b: [{ c: 2 }, 1] } } },
      },
      {
        method: 'POST',
        url: '/v1/x',
        body: { data: { type: 'x', attributes: { a: '1', b: [1, { c: 2 }] } } },
      },
      { method: 'POST', url: '/v1/x', body: undefined },
    ]) {
      expect(requestFingerprint(other)).not.toBe(base);
    }
  });

  it('tells multipart uploads apart by their boundary and length', () => {
    const upload = (contentType: string, length: string) =>
      requestFingerprint({
        method: 'POST',
        url: '/v1/files',
        headers: { 'content-type': contentType, 'content-length': length },
      });
    const first = upload('multipart/form-data; boundary=a1', '2048');
    expect(upload('multipart/form-data; boundary=a1', '2048')).toBe(first);
    expect(upload('multipart/form-data; boundary=b2', '2048')).not.toBe(first);
    expect(upload('multipart/form-data; boundary=a1', '2049')).not.toBe(first);
  });
});
