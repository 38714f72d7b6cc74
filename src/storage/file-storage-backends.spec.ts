import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { buffer, text } from 'node:stream/consumers';
import { startTestS3, TestS3 } from '../../test/support/s3-server';
import type { FileStorage } from './file-storage';
import { LocalFileStorage } from './local-file-storage';
import { S3FileStorage } from './s3-file-storage';

/** `total` bytes in 1 MiB chunks, each byte its offset mod 251, generated as read. */
function generated(total: number): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= total) return void this.push(null);
      const chunk = Buffer.alloc(Math.min(1 << 20, total - sent));
      for (let i = 0; i < chunk.length; i++) chunk[i] = (sent + i) % 251;
      sent += chunk.length;
      this.push(chunk);
    },
  });
}

function failingAfter(bytes: number): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= bytes)
        return void this.destroy(new Error('client went away'));
      sent += 1 << 20;
      this.push(Buffer.alloc(1 << 20, 7));
    },
  });
}

const backends: [
  string,
  () => Promise<{
    storage: FileStorage;
    close(): Promise<void>;
    leftovers(): string[];
  }>,
][] = [
  [
    'local disk',
    () => {
      const root = mkdtempSync(join(tmpdir(), 'zest-storage-'));
      return Promise.resolve({
        storage: new LocalFileStorage(root),
        leftovers: () => readdirSync(root, { recursive: true }) as string[],
        close: () =>
          Promise.resolve(rmSync(root, { recursive: true, force: true })),
      });
    },
  ],
  [
    'S3 (s3rver)',
    async () => {
      const s3: TestS3 = await startTestS3('shop');
      Object.assign(process.env, s3.env);
      const storage = new S3FileStorage(s3.settings);
      return {
        storage,
        leftovers: () =>
          (readdirSync(s3.directory, { recursive: true }) as string[]).filter(
            (path) => path.endsWith('._S3rver_object'),
          ),
        close: async () => {
          storage.close();
          await s3.close();
        },
      };
    },
  ],
];

describe.each(backends)('FileStorage on %s', (_name, make) => {
  let backend: Awaited<ReturnType<typeof make>>;
  let storage: FileStorage;

  beforeEach(async () => {
    backend = await make();
    storage = backend.storage;
  });
  afterEach(() => backend.close());

  it('streams a 24 MiB upload in and reads ranges back', async () => {
    const size = 24 * 1024 * 1024 + 123;
    await storage.putStream('files/a/big.bin', generated(size));
    const expected = createHash('sha256');
    for await (const chunk of generated(size)) expected.update(chunk as Buffer);

    const whole = await storage.open('files/a/big.bin');
    expect(whole?.size).toBe(size);
    const actual = createHash('sha256');
    for await (const chunk of whole!.stream) actual.update(chunk as Buffer);
    expect(actual.digest('hex')).toBe(expected.digest('hex'));

    const start = 10 * 1024 * 1024 + 5;
    const part = await storage.open('files/a/big.bin', {
      start,
      end: start + 9,
    });
    expect(part?.size).toBe(size);
    const bytes = await buffer(part!.stream);
    expect([...bytes]).toEqual(
      Array.from({ length: 10 }, (_, i) => (start + i) % 251),
    );
  });

  it('stores nothing when the source fails midway', async () => {
    await storage.put('files/b/keep.bin', Buffer.from('previous'));
    await expect(
      storage.putStream('files/b/keep.bin', failingAfter(12 * 1024 * 1024)),
    ).rejects.toThrow('client went away');
    await expect(
      storage.putStream('files/b/new.bin', failingAfter(3 * 1024 * 1024)),
    ).rejects.toThrow('client went away');
    expect(await text((await storage.open('files/b/keep.bin'))!.stream)).toBe(
      'previous',
    );
    expect(await storage.exists('files/b/new.bin')).toBe(false);
    expect(
      backend.leftovers().filter((path) => path.includes('new.bin')),
    ).toEqual([]);
  });

  it('lists a folder, deletes idempotently and reports missing files', async () => {
    await storage.put('invoices/orders/1/a.pdf', Buffer.from('a'));
    await storage.put('invoices/orders/1/b.pdf', Buffer.from('b'));
    await storage.put('invoices/orders/1/sub/c.pdf', Buffer.from('c'));
    expect((await storage.list('invoices/orders/1')).sort()).toEqual([
      'invoices/orders/1/a.pdf',
      'invoices/orders/1/b.pdf',
    ]);
    expect(await storage.list('invoices/orders/2')).toEqual([]);
    await storage.delete('invoices/orders/1/a.pdf');
    await storage.delete('invoices/orders/1/a.pdf');
    expect(await storage.exists('invoices/orders/1/a.pdf')).toBe(false);
    expect(await storage.open('invoices/orders/1/a.pdf')).toBeNull();
    expect(await storage.exists('invoices/orders/1/b.pdf')).toBe(true);
  });
});

describe('S3 presigned URLs', () => {
  let s3: TestS3;
  let storage: S3FileStorage;

  beforeAll(async () => {
    s3 = await startTestS3();
    Object.assign(process.env, s3.env);
    storage = new S3FileStorage(s3.settings);
  });
  afterAll(async () => {
    storage.close();
    await s3.close();
  });

  it('serves the object with the given name and type, ranges included, and refuses a tampered URL', async () => {
    await storage.put('files/p/guide.pdf', Buffer.from('%PDF-1.7 content'));
    const url = await storage.presignedUrl('files/p/guide.pdf', {
      expiresInSeconds: 60,
      fileName: 'Guide ünïcode "v2".pdf',
      contentType: 'application/pdf',
    });
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="Guide _n_code _v2_.pdf"; filename*=UTF-8''Guide%20%C3%BCn%C3%AFcode%20%22v2%22.pdf`,
    );
    expect(await response.text()).toBe('%PDF-1.7 content');

    const ranged = await fetch(url, { headers: { Range: 'bytes=5-' } });
    expect(ranged.status).toBe(206);
    expect(await ranged.text()).toBe('1.7 content');

    const tampered = await fetch(url.replace('guide.pdf', 'guide.pdF'));
    expect(tampered.status).toBe(403);
  });
});
