import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { LocalFileStorage } from '../../storage/local-file-storage';
import {
  FileUploadStore,
  UPLOAD_EXPIRATION_MS,
  UploadInfo,
} from './file-upload.store';

const ID = 'a'.repeat(32);

function info(overrides: Partial<UploadInfo> = {}): UploadInfo {
  return {
    id: ID,
    size: 10,
    offset: 0,
    userId: 1,
    testMode: true,
    variantId: 2,
    name: 'a.txt',
    sort: null,
    metadata: {},
    createdAt: new Date().toISOString(),
    fileId: null,
    ...overrides,
  };
}

describe('FileUploadStore', () => {
  let root: string;
  let storage: LocalFileStorage;
  let store: FileUploadStore;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'zest-uploads-'));
    storage = new LocalFileStorage(root);
    store = new FileUploadStore(storage);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('appends parts at their offsets and reads them back as one stream', async () => {
    await store.saveInfo(info());
    expect(await store.write(Readable.from([Buffer.from('abc')]), ID, 0)).toBe(
      3,
    );
    expect(
      await store.write(
        Readable.from([Buffer.from('def'), Buffer.from('ghij')]),
        ID,
        3,
      ),
    ).toBe(10);
    const upload = await store.getUpload(ID);
    expect(upload.offset).toBe(10);
    expect(await text(store.content((await store.readInfo(ID))!))).toBe(
      'abcdefghij',
    );
  });

  it('keeps nothing of a body that fails, and refuses a stale offset', async () => {
    await store.saveInfo(info());
    const failing = new Readable({
      read() {
        this.push(Buffer.from('abc'));
        this.destroy(new Error('connection reset'));
      },
    });
    await expect(store.write(failing, ID, 0)).rejects.toThrow();
    expect((await store.getUpload(ID)).offset).toBe(0);
    expect(await storage.list(`uploads/${ID}`)).toEqual([]);
    await expect(
      store.write(Readable.from([Buffer.from('x')]), ID, 5),
    ).rejects.toMatchObject({ status_code: 409 });
  });

  it('answers 404 for an unknown or malformed id', async () => {
    await expect(store.getUpload('b'.repeat(32))).rejects.toMatchObject({
      status_code: 404,
    });
    expect(await store.readInfo('../etc/passwd')).toBeNull();
  });

  it('deletes only uploads past their expiration, with their parts', async () => {
    const fresh = 'c'.repeat(32);
    await store.saveInfo(
      info({
        createdAt: new Date(
          Date.now() - UPLOAD_EXPIRATION_MS - 1000,
        ).toISOString(),
      }),
    );
    await store.write(Readable.from([Buffer.from('abc')]), ID, 0);
    await store.saveInfo(info({ id: fresh }));
    expect(await store.deleteExpired()).toBe(1);
    expect(await store.readInfo(ID)).toBeNull();
    expect(await storage.list(`uploads/${ID}`)).toEqual([]);
    expect(await store.readInfo(fresh)).not.toBeNull();
  });
});
