import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { FileContentMover } from '../../src/modules/catalog/file-content-mover';
import { DeliveryService } from '../../src/modules/delivery/delivery.service';
import { FILE_STORAGE, FileStorage } from '../../src/storage/file-storage';
import { buy, buyNowUrl } from '../support/commerce';
import {
  createMerchant,
  createPricedProduct,
  Merchant,
} from '../support/factories';
import { filesDocument, postMultipart, uploadFile } from '../support/files';
import { startTestApp, TestApp } from '../support/test-app';

describe('files from before storage, and download caps under concurrency', () => {
  let t: TestApp;
  let merchant: Merchant;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'zest-move-'));
    t = await startTestApp({ STORAGE_DIR: dir });
    merchant = await createMerchant(t.app);
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A file as releases before storage kept it: bytes in `file_contents`, no key. */
  async function legacyFile(variantId: number, content: Buffer) {
    const db = t.app.get(DataSource);
    const identifier = randomUUID();
    const [row] = (await db.query(
      `INSERT INTO files (identifier, store_id, variant_id, test_mode, name, extension,
                          size, content_type, version, sort, status)
       SELECT $1, store_id, id, test_mode, 'old.zip', 'zip', $2, 'application/zip', '', 0, 'published'
         FROM variants WHERE id = $3
       RETURNING id`,
      [identifier, content.length, variantId],
    )) as { id: number }[];
    await db.query(
      `INSERT INTO file_contents (file_id, content) VALUES ($1, $2)`,
      [row.id, content],
    );
    return { id: row.id, identifier };
  }

  it('moves bytea contents into storage without losing any, idempotently and after a crash', async () => {
    const { variantId } = await createPricedProduct(
      t.baseUrl,
      merchant.testKey,
      merchant.stores[0].id,
    );
    const db = t.app.get(DataSource);
    const mover = t.app.get(FileContentMover);
    const storage = t.app.get<FileStorage>(FILE_STORAGE);
    // Let the start-up pass finish first (it found nothing).
    await mover.moveAll();

    const contents = [
      Buffer.from('first legacy file'),
      Buffer.alloc(3 * 1024 * 1024, 9),
    ];
    const files = [];
    for (const content of contents)
      files.push(await legacyFile(Number(variantId), content));

    // Before the move: served from the database, checksum not yet known.
    const before = await request(t.baseUrl)
      .get(`/v1/files/${files[0].id}`)
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .expect(200);
    expect(before.body.data.attributes.sha256).toBeNull();
    const early = await fetch(
      before.body.data.attributes.download_url as string,
    );
    expect(Buffer.from(await early.arrayBuffer())).toEqual(contents[0]);

    // A crash after storing the first file but before recording it: the
    // object exists, the row still has no key and its bytes.
    const storeId = merchant.stores[0].id;
    await storage.put(
      `files/stores/${storeId}/${files[0].identifier}`,
      contents[0],
    );

    expect(await mover.moveAll()).toBe(2);
    expect(await mover.moveAll()).toBe(0);
    expect(
      await db.query(`SELECT count(*)::int AS n FROM file_contents`),
    ).toEqual([{ n: 0 }]);

    for (const [i, file] of files.entries()) {
      const read = await request(t.baseUrl)
        .get(`/v1/files/${file.id}`)
        .set('Authorization', `Bearer ${merchant.testKey}`)
        .expect(200);
      const sha256 = createHash('sha256').update(contents[i]).digest('hex');
      expect(read.body.data.attributes.sha256).toBe(sha256);
      const response = await fetch(
        read.body.data.attributes.download_url as string,
      );
      expect(response.status).toBe(200);
      expect(Buffer.from(await response.arrayBuffer())).toEqual(contents[i]);
    }
  });

  it('removes the bytes of a deleted file that no order holds', async () => {
    const { variantId } = await createPricedProduct(
      t.baseUrl,
      merchant.testKey,
      merchant.stores[0].id,
    );
    const uploaded = await uploadFile(t.baseUrl, merchant.testKey, {
      variantId,
      file: new Blob(['never sold']),
      name: 'x.txt',
      attributes: { name: 'unsold.txt' },
    });
    expect(uploaded.status).toBe(201);
    const file = (
      (await uploaded.json()) as {
        data: {
          id: string;
          attributes: { identifier: string; download_url: string };
        };
      }
    ).data;
    const storage = t.app.get<FileStorage>(FILE_STORAGE);
    const key = `files/stores/${merchant.stores[0].id}/${file.attributes.identifier}`;
    expect(await storage.exists(key)).toBe(true);
    await request(t.baseUrl)
      .delete(`/v1/files/${file.id}`)
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .expect(204);
    expect(await storage.exists(key)).toBe(false);
    // The merchant's link of a deleted file stops working too.
    expect((await fetch(file.attributes.download_url)).status).toBe(404);
    await request(t.baseUrl)
      .delete(`/v1/files/${file.id}`)
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .expect(404);
  });

  it('refuses malformed uploads with a code, storing nothing', async () => {
    const { variantId } = await createPricedProduct(
      t.baseUrl,
      merchant.testKey,
      merchant.stores[0].id,
    );
    const other = await createMerchant(t.app);
    const post = async (
      parts: [string, string | Blob, string?][],
      key = merchant.testKey,
    ) => {
      const form = new FormData();
      for (const [name, value, filename] of parts)
        if (typeof value === 'string') form.append(name, value);
        else form.append(name, value, filename);
      const response = await postMultipart(t.baseUrl, key, form);
      const body = (await response.json()) as {
        errors: { code?: string; source?: { pointer: string } }[];
      };
      return { status: response.status, error: body.errors[0] };
    };
    const blob = new Blob(['content']);
    const countObjects = async () => [
      (await t.app
        .get(DataSource)
        .query(`SELECT count(*)::int AS n FROM files`)) as { n: number }[],
      (readdirSync(join(dir, 'files'), { recursive: true }) as string[]).filter(
        (path) => /[0-9a-f]{8}-[0-9a-f-]{27}$/.test(path),
      ).length,
    ];
    const before = await countObjects();

    expect(await post([['file', blob, 'a.txt']])).toMatchObject({
      status: 400,
      error: { code: 'malformed_upload' },
    });
    expect(
      await post([
        ['file', blob, 'a.txt'],
        ['data', filesDocument(variantId)],
      ]),
    ).toMatchObject({ status: 400, error: { code: 'malformed_upload' } });
    expect(
      await post([
        ['data', 'not json'],
        ['file', blob, 'a.txt'],
      ]),
    ).toMatchObject({
      status: 400,
      error: { code: 'malformed_upload' },
    });
    expect(await post([['data', filesDocument(variantId)]])).toMatchObject({
      status: 400,
      error: { code: 'malformed_upload' },
    });
    expect(
      await post([
        ['data', filesDocument(variantId)],
        ['file', new Blob([]), 'empty.txt'],
      ]),
    ).toMatchObject({ status: 422, error: { code: 'empty_file' } });
    expect(
      await post([
        ['data', filesDocument(variantId)],
        ['file', blob, 'a\u0001b.txt'],
      ]),
    ).toMatchObject({ status: 422, error: { code: 'invalid_file_name' } });
    // A body cut short inside the file part, and one with no boundary at all.
    const boundary = 'zest-cut-short';
    for (const [contentType, body] of [
      [
        `multipart/form-data; boundary=${boundary}`,
        `--${boundary}\r\nContent-Disposition: form-data; name="data"\r\n\r\n${filesDocument(variantId)}\r\n` +
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nhalf a fi`,
      ],
      ['multipart/form-data', 'no boundary'],
    ]) {
      const response = await fetch(`${t.baseUrl}/v1/files`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${merchant.testKey}`,
          'Content-Type': contentType,
        },
        body,
      });
      expect(response.status).toBe(400);
      expect(
        ((await response.json()) as { errors: { code: string }[] }).errors[0]
          .code,
      ).toBe('malformed_upload');
    }
    // Another merchant's variant does not exist for this key.
    expect(
      await post(
        [
          ['data', filesDocument(variantId)],
          ['file', blob, 'a.txt'],
        ],
        other.testKey,
      ),
    ).toMatchObject({
      status: 404,
      error: { source: { pointer: '/data/relationships/variant' } },
    });
    expect(await countObjects()).toEqual(before);
    const json = await fetch(`${t.baseUrl}/v1/files`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${merchant.testKey}`,
        'Content-Type': 'application/vnd.api+json',
      },
      body: filesDocument(variantId),
    });
    expect(json.status).toBe(400);
  });

  it('replays an upload resent under its Idempotency-Key, and refuses another upload under it', async () => {
    const { variantId } = await createPricedProduct(
      t.baseUrl,
      merchant.testKey,
      merchant.stores[0].id,
    );
    const upload = (boundary: string, content: string) =>
      fetch(`${t.baseUrl}/v1/files`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${merchant.testKey}`,
          'Content-Type': `multipart/form-data; boundary=${boundary}`,
          'Idempotency-Key': 'upload-once',
        },
        body:
          `--${boundary}\r\nContent-Disposition: form-data; name="data"\r\n\r\n` +
          filesDocument(String(variantId)) +
          `\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\n` +
          `${content}\r\n--${boundary}--\r\n`,
      });
    const count = async () =>
      (
        (await t.app
          .get(DataSource)
          .query(`SELECT count(*)::int AS n FROM files WHERE variant_id = $1`, [
            variantId,
          ])) as { n: number }[]
      )[0].n;
    const first = await upload('first-form', 'the installer');
    expect(first.status).toBe(201);
    const again = await upload('first-form', 'the installer');
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(((await again.json()) as { data: { id: string } }).data.id).toBe(
      ((await first.json()) as { data: { id: string } }).data.id,
    );
    // Another file under the same key is not given the first one's answer.
    const other = await upload('other-form', 'another file');
    expect(other.status).toBe(422);
    expect(await count()).toBe(1);
  });

  it('lets exactly download_limit parallel downloads through', async () => {
    const { product, variantId } = await createPricedProduct(
      t.baseUrl,
      merchant.testKey,
      merchant.stores[0].id,
    );
    await request(t.baseUrl)
      .patch(`/v1/variants/${variantId}`)
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .set('Content-Type', 'application/vnd.api+json')
      .send({
        data: {
          type: 'variants',
          id: variantId,
          attributes: { download_limit: 3 },
        },
      })
      .expect(200);
    const uploaded = await uploadFile(t.baseUrl, merchant.testKey, {
      variantId,
      file: new Blob([Buffer.alloc(256 * 1024, 1)]),
      name: 'a.bin',
    });
    expect(uploaded.status).toBe(201);

    const bought = await buy(
      t.baseUrl,
      await buyNowUrl(t.baseUrl, merchant.testKey, product.id),
    ).expect(201);
    const [download] = await t.app
      .get(DeliveryService)
      .orderDownloads(
        Number((bought.body as { data: { id: string } }).data.id),
      );
    const statuses = await Promise.all(
      Array.from({ length: 10 }, async () => {
        const response = await fetch(download.url);
        await response.arrayBuffer();
        return response.status;
      }),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    expect(statuses.filter((s) => s === 403)).toHaveLength(7);
    const [again] = await t.app
      .get(DeliveryService)
      .orderDownloads(
        Number((bought.body as { data: { id: string } }).data.id),
      );
    expect(again.downloadsUsed).toBe(3);
  });
});
