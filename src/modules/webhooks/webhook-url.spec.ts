import { once } from 'node:events';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import {
  checkWebhookUrl,
  guardedLookup,
  isPublicAddress,
  Resolver,
  WebhookUrlRefused,
} from './webhook-url';
import { WebhookSender } from './webhook-sender';

/** A loopback listener that counts every connection it receives. */
async function canary(
  handler: Parameters<typeof createServer>[1] = (_, res) => res.end('ok'),
) {
  const server: Server = createServer(handler);
  let connections = 0;
  server.on('connection', () => connections++);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const fixed =
  (...addresses: string[]): Resolver =>
  () =>
    Promise.resolve(
      addresses.map((address) => ({
        address,
        family: address.includes(':') ? 6 : 4,
      })),
    );

describe('isPublicAddress', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '255.255.255.255',
    '224.0.0.1',
    '198.18.0.1',
    '192.0.0.8',
    '192.0.2.1',
    '::',
    '::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:8.8.8.8',
    '64:ff9b::7f00:1',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'ff02::1',
    '2001:db8::1',
    '2002:7f00:1::1',
    'not-an-ip',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['8.8.8.8', '93.184.216.34', '172.32.0.1', '2606:4700::1111'])(
    'allows %s',
    (address) => {
      expect(isPublicAddress(address)).toBe(true);
    },
  );
});

describe('checkWebhookUrl', () => {
  const strict = { requireHttps: false, allowPrivate: false };

  it.each([
    'http://127.1/',
    'http://2130706433/',
    'http://0x7f000001/',
    'http://0177.0.0.1/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://0.0.0.0/',
    'http://169.254.169.254/latest/meta-data/',
    'http://10.0.0.1/',
    'http://172.16.0.1/',
    'http://192.168.0.1/',
    'http://100.64.0.1/',
    'http://[fc00::1]/',
    'http://[fe80::1]/',
    'http://localhost/',
    'http://api.localhost/',
    'http://intranet/',
    'file:///etc/passwd',
    'gopher://example.com/',
    'ftp://example.com/',
    'http://a@127.0.0.1/',
    'http://user:pass@example.com/',
    'not a url',
    'http://[example.com]/',
  ])('refuses %s', (url) => {
    expect(() => checkWebhookUrl(url, strict)).toThrow(WebhookUrlRefused);
  });

  it('accepts public names and addresses', () => {
    expect(
      checkWebhookUrl('https://hooks.example.com/in?x=1', strict).host,
    ).toBe('hooks.example.com');
    expect(() =>
      checkWebhookUrl('http://93.184.216.34/', strict),
    ).not.toThrow();
  });

  it('requires https in live mode, even with private addresses allowed', () => {
    expect(() =>
      checkWebhookUrl('http://example.com/', {
        requireHttps: true,
        allowPrivate: true,
      }),
    ).toThrow(/https/);
  });

  it('lets private targets through only when allowed', () => {
    expect(() =>
      checkWebhookUrl('http://127.0.0.1:9/', {
        requireHttps: false,
        allowPrivate: true,
      }),
    ).not.toThrow();
  });
});

describe('guardedLookup', () => {
  const lookup = (resolver: Resolver, all = false) =>
    new Promise<{ error: Error | null; address: unknown }>((resolve) =>
      guardedLookup(resolver, false)('host.test', { all }, (error, address) =>
        resolve({ error, address }),
      ),
    );

  it('answers public addresses in both callback styles', async () => {
    expect(await lookup(fixed('93.184.216.34'))).toEqual({
      error: null,
      address: '93.184.216.34',
    });
    expect((await lookup(fixed('93.184.216.34'), true)).address).toEqual([
      { address: '93.184.216.34', family: 4 },
    ]);
  });

  it('refuses a name if any of its addresses is not public', async () => {
    const result = await lookup(fixed('93.184.216.34', '127.0.0.1'));
    expect(result.error).toBeInstanceOf(WebhookUrlRefused);
  });

  it('checks every resolution, so a rebinding name is refused when it turns private', async () => {
    let calls = 0;
    const rebinding: Resolver = () =>
      Promise.resolve([
        { address: calls++ === 0 ? '93.184.216.34' : '127.0.0.1', family: 4 },
      ]);
    expect((await lookup(rebinding)).error).toBeNull();
    expect((await lookup(rebinding)).error).toBeInstanceOf(WebhookUrlRefused);
  });
});

describe('WebhookSender against hostile targets', () => {
  const send = (sender: WebhookSender, url: string, requireHttps = false) =>
    sender.send({ url, headers: {}, body: '{}', requireHttps });

  it('never opens a socket to a refused target', async () => {
    const target = await canary();
    const p = target.port;
    const toLoopback = fixed('127.0.0.1');
    const sender = new WebhookSender({
      timeoutMs: 2000,
      allowPrivate: false,
      resolver: toLoopback,
    });
    const hostile = [
      `http://127.1:${p}/`,
      `http://2130706433:${p}/`,
      `http://0x7f000001:${p}/`,
      `http://0177.0.0.1:${p}/`,
      `http://[::1]:${p}/`,
      `http://[::ffff:127.0.0.1]:${p}/`,
      `http://0.0.0.0:${p}/`,
      `http://169.254.169.254:${p}/`,
      `http://10.0.0.1:${p}/`,
      `http://172.16.0.1:${p}/`,
      `http://192.168.0.1:${p}/`,
      `http://100.64.0.1:${p}/`,
      `http://[fc00::1]:${p}/`,
      `http://[fe80::1]:${p}/`,
      `http://localhost:${p}/`,
      // A public-looking name that resolves to loopback at connect time.
      `http://resolves-to-loopback.example.com:${p}/`,
      `file:///etc/passwd`,
      `gopher://127.0.0.1:${p}/`,
      `http://a@127.0.0.1:${p}/`,
    ];
    for (const url of hostile) {
      const result = await send(sender, url);
      expect({ url, code: result.responseCode }).toEqual({ url, code: null });
      expect(result.error).toMatch(/^Refused/);
    }
    // Live mode: plain http is refused before any lookup.
    expect((await send(sender, 'http://example.com/', true)).error).toMatch(
      /https/,
    );
    expect(target.connections()).toBe(0);
    await target.close();
  });

  it('refuses a rebinding name at connect time', async () => {
    const target = await canary();
    let calls = 0;
    const sender = new WebhookSender({
      timeoutMs: 2000,
      allowPrivate: false,
      // The first resolution (any earlier check) is public, the connect-time one loopback.
      resolver: () =>
        Promise.resolve([
          {
            address: calls++ === 0 ? '93.184.216.34' : '127.0.0.1',
            family: 4,
          },
        ]),
    });
    calls = 1;
    const result = await send(
      sender,
      `http://rebind.example.com:${target.port}/`,
    );
    expect(result.error).toMatch(/^Refused/);
    expect(target.connections()).toBe(0);
    await target.close();
  });

  it('does not follow a redirect to an internal address', async () => {
    const internal = await canary();
    const redirecting = await canary((_, res) => {
      res.writeHead(302, { Location: `http://127.0.0.1:${internal.port}/` });
      res.end();
    });
    // Private targets allowed so the redirecting receiver itself is reachable.
    const sender = new WebhookSender({ timeoutMs: 2000, allowPrivate: true });
    const result = await send(sender, `http://127.0.0.1:${redirecting.port}/`);
    expect(result.responseCode).toBe(302);
    expect(result.error).toBe('HTTP 302');
    expect(internal.connections()).toBe(0);
    await internal.close();
    await redirecting.close();
  });

  it('times out a receiver that hangs', async () => {
    const hanging = await canary(() => undefined);
    const sender = new WebhookSender({ timeoutMs: 300, allowPrivate: true });
    const result = await send(sender, `http://127.0.0.1:${hanging.port}/`);
    expect(result.responseCode).toBeNull();
    expect(result.error).toMatch(/Timed out/);
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
    await hanging.close();
  });
});
