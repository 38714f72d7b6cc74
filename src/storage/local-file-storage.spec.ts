import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { LocalFileStorage } from './local-file-storage';

describe('LocalFileStorage', () => {
  let root: string;
  let storage: LocalFileStorage;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'zest-storage-'));
    storage = new LocalFileStorage(join(root, 'files'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('writes, streams back and overwrites a file', async () => {
    expect(await storage.open('invoices/orders/1/a.pdf')).toBeNull();
    expect(await storage.exists('invoices/orders/1/a.pdf')).toBe(false);

    await storage.put('invoices/orders/1/a.pdf', Buffer.from('first'));
    expect(await storage.exists('invoices/orders/1/a.pdf')).toBe(true);
    const file = await storage.open('invoices/orders/1/a.pdf');
    expect(file?.size).toBe(5);
    expect(await text(file!.stream)).toBe('first');

    await storage.put('invoices/orders/1/a.pdf', Buffer.from('second!'));
    const again = await storage.open('invoices/orders/1/a.pdf');
    expect(again?.size).toBe(7);
    expect(await text(again!.stream)).toBe('second!');
    // No temporary files are left next to the target.
    expect(readdirSync(join(root, 'files/invoices/orders/1'))).toEqual([
      'a.pdf',
    ]);
  });

  it('keeps readers on a complete file while a write replaces it', async () => {
    await storage.put('k.bin', Buffer.alloc(1 << 20, 1));
    const reader = await storage.open('k.bin');
    await storage.put('k.bin', Buffer.alloc(1 << 20, 2));
    const chunks: Buffer[] = [];
    for await (const chunk of reader!.stream) chunks.push(chunk as Buffer);
    const old = Buffer.concat(chunks);
    expect(old.length).toBe(1 << 20);
    expect(old.every((byte) => byte === 1)).toBe(true);
  });

  it('runs parallel writes of one key without corrupting it', async () => {
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        storage.put('same.txt', Buffer.from(`value-${i}`.padEnd(64, '.'))),
      ),
    );
    const content = await text((await storage.open('same.txt'))!.stream);
    expect(content).toMatch(/^value-\d+\.+$/);
    expect(content).toHaveLength(64);
  });

  it('refuses keys that could leave the root', async () => {
    writeFileSync(join(root, 'secret'), 'x');
    for (const key of [
      '../secret',
      'a/../../secret',
      '/etc/passwd',
      'a//b',
      '',
      '.hidden',
      'a/./b',
      'a\\b',
      'a/b/',
      'x'.repeat(600),
    ]) {
      await expect(storage.open(key)).rejects.toThrow(/Unsafe storage key/);
      await expect(storage.put(key, Buffer.from('x'))).rejects.toThrow(
        /Unsafe storage key/,
      );
    }
  });

  it('deletes idempotently', async () => {
    await storage.put('d.txt', Buffer.from('x'));
    await storage.delete('d.txt');
    await storage.delete('d.txt');
    expect(await storage.exists('d.txt')).toBe(false);
  });

  it('keeps a reader on a file deleted under it', async () => {
    await storage.put('gone.bin', Buffer.alloc(1 << 20, 3));
    const reader = await storage.open('gone.bin');
    await storage.delete('gone.bin');
    expect(await storage.exists('gone.bin')).toBe(false);
    const chunks: Buffer[] = [];
    for await (const chunk of reader!.stream) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).length).toBe(1 << 20);
  });

  it('lists the complete files of a folder, not writes in progress or subfolders', async () => {
    expect(await storage.list('invoices/orders/1')).toEqual([]);
    await storage.put('invoices/orders/1/a.pdf', Buffer.from('a'));
    await storage.put('invoices/orders/1/b.pdf', Buffer.from('b'));
    await storage.put('invoices/orders/1/sub/c.pdf', Buffer.from('c'));
    writeFileSync(join(root, 'files/invoices/orders/1/a.pdf.0a1b2c.tmp'), 'x');
    expect((await storage.list('invoices/orders/1')).sort()).toEqual([
      'invoices/orders/1/a.pdf',
      'invoices/orders/1/b.pdf',
    ]);
    await expect(
      storage.put('a.pdf.0a1b2c.tmp', Buffer.from('x')),
    ).rejects.toThrow(/Reserved storage key/);
  });

  it('removes temporary files older than the given age, anywhere under the root', async () => {
    const folder = join(root, 'files/invoices/orders/7');
    mkdirSync(folder, { recursive: true });
    const stale = join(folder, 'a.pdf.111111111111.tmp');
    const deep = join(root, 'files/x/y/z.pdf.222222222222.tmp');
    const fresh = join(folder, 'a.pdf.333333333333.tmp');
    const complete = join(folder, 'old.pdf');
    mkdirSync(join(root, 'files/x/y'), { recursive: true });
    for (const file of [stale, deep, fresh, complete]) writeFileSync(file, 'x');
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    for (const file of [stale, deep, complete])
      utimesSync(file, twoHoursAgo, twoHoursAgo);

    expect(await storage.removeStaleTemporaryFiles(60 * 60 * 1000)).toBe(2);
    expect([stale, deep, fresh, complete].map((f) => existsSync(f))).toEqual([
      false,
      false,
      true,
      true,
    ]);
    expect(await storage.removeStaleTemporaryFiles(60 * 60 * 1000)).toBe(0);
  });

  it('sweeps nothing, without failing, before the root exists', async () => {
    expect(await storage.removeStaleTemporaryFiles(0)).toBe(0);
  });
});
