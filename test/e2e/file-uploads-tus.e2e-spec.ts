import { createHash } from 'node:crypto';
import { createReadStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import * as tus from 'tus-js-client';
import { DataSource } from 'typeorm';
import { FileUploadService } from '../../src/modules/catalog/file-upload.service';
import {
  createMerchant,
  createPricedProduct,
  Merchant,
} from '../support/factories';
import { generatePatternFile } from '../support/files';
import { startTestStorage, TestStorage } from '../support/storage-backends';
import { startTestApp, TestApp } from '../support/test-app';

const MIB = 1024 * 1024;
const SIZE = 200 * MIB + 13;
const CHUNK = 16 * MIB;
const LIMIT = 256 * MIB;

/** 200 MiB through the API twice (upload, then download to check it). */
const LONG = 600_000;

/** A raw tus request (what a client sends), with the caller's key. */
function tusRequest(
  t: TestApp,
  method: string,
  path: string,
  key: string,
  headers: Record<string, string> = {},
  body?: Uint8Array,
) {
  return fetch(`${t.baseUrl}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${key}`,
      'Tus-Resumable': '1.0.0',
      ...headers,
    },
    body: body as BodyInit | undefined,
  });
}

/** The code of a JSON:API error response. */
async function codeOf(response: Response): Promise<string> {
  expect(response.headers.get('content-type')).toContain(
    'application/vnd.api+json',
  );
  const body = (await response.json()) as { errors: { code: string }[] };
  return body.errors[0].code;
}

const metadataHeader = (metadata: Record<string, string>) =>
  Object.entries(metadata)
    .map(([k, v]) => `${k} ${Buffer.from(v).toString('base64')}`)
    .join(',');

async function waitFor<T>(
  probe: () => Promise<T | null>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error('Condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.each(['local disk', 'S3'])(
  'resumable uploads (tus) on %s',
  (backend) => {
    let t: TestApp;
    let storage: TestStorage;
    let merchant: Merchant;
    let other: Merchant;
    let dir: string;
    let variantId: string;
    /** Stored objects of resumable uploads (state and parts). */
    const uploadObjects = () => storage.objects('uploads');
    /** Stored objects of recorded files. */
    const fileObjects = () => storage.objects('files/stores');

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'zest-tus-'));
      storage = await startTestStorage(backend, dir, 'tus');
      t = await startTestApp({
        FILE_MAX_BYTES: String(LIMIT),
        LOG_LEVEL: 'error',
        ...storage.env,
      });
      merchant = await createMerchant(t.app);
      other = await createMerchant(t.app);
      ({ variantId } = await createPricedProduct(
        t.baseUrl,
        merchant.testKey,
        merchant.stores[0].id,
      ));
    });

    afterAll(async () => {
      await t?.close();
      await storage?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it(
      'uploads 200 MiB in chunks, survives a dropped connection, resumes at the server offset',
      async () => {
        const path = join(dir, 'big.pdf');
        const sha256 = await generatePatternFile(path, SIZE);
        const options = {
          endpoint: `${t.baseUrl}/v1/files/uploads`,
          chunkSize: CHUNK,
          uploadSize: SIZE,
          headers: { Authorization: `Bearer ${merchant.testKey}` },
          metadata: { variant: variantId, filename: 'installer.pdf' },
          retryDelays: [100, 500, 1000, 2000],
          storeFingerprintForResuming: false,
        };

        // First attempt: cut off mid-PATCH once more than half is sent.
        let first!: tus.Upload;
        await new Promise<void>((resolve) => {
          first = new tus.Upload(createReadStream(path), {
            ...options,
            onProgress: (sent) => {
              if (sent > SIZE / 2 + CHUNK / 2) void first.abort().then(resolve);
            },
            onError: () => undefined,
          });
          first.start();
        });
        const uploadPath = new URL(first.url!).pathname;
        expect(uploadPath).toMatch(/^\/v1\/files\/uploads\/[0-9a-f]{32}$/);

        // The server kept what arrived: HEAD gives the offset to resume from.
        const offset = await waitFor(async () => {
          const head = await tusRequest(
            t,
            'HEAD',
            uploadPath,
            merchant.testKey,
          );
          expect(head.status).toBe(200);
          const value = Number(head.headers.get('upload-offset'));
          return value > SIZE / 2 ? value : null;
        });
        expect(offset).toBeLessThan(SIZE);

        // Another merchant's key cannot see, resume or end it.
        for (const method of ['HEAD', 'DELETE'])
          expect(
            (await tusRequest(t, method, uploadPath, other.testKey)).status,
          ).toBe(404);
        const foreignPatch = await tusRequest(
          t,
          'PATCH',
          uploadPath,
          other.testKey,
          {
            'Upload-Offset': String(offset),
            'Content-Type': 'application/offset+octet-stream',
          },
          Buffer.alloc(1024),
        );
        expect(foreignPatch.status).toBe(404);
        // Nor the same merchant's live key (another mode).
        expect(
          (await tusRequest(t, 'HEAD', uploadPath, merchant.liveKey)).status,
        ).toBe(404);

        // Resume: the client asks the server's offset and sends the rest.
        const patchOffsets: string[] = [];
        const finished = await new Promise<tus.HttpResponse>(
          (resolve, reject) => {
            const resumed = new tus.Upload(createReadStream(path), {
              ...options,
              uploadUrl: first.url,
              onBeforeRequest: (req) => {
                if (req.getMethod() === 'PATCH')
                  patchOffsets.push(req.getHeader('Upload-Offset') ?? '');
              },
              onSuccess: ({ lastResponse }) => resolve(lastResponse),
              onError: reject,
            });
            resumed.start();
          },
        );
        expect(Number(patchOffsets[0])).toBe(offset);
        const fileId = finished.getHeader('Zest-File-Id');
        expect(fileId).toMatch(/^\d+$/);

        // The same `files` resource as a multipart upload: checksum, type, order.
        const file = await request(t.baseUrl)
          .get(`/v1/files/${fileId}`)
          .set('Authorization', `Bearer ${merchant.testKey}`)
          .expect(200);
        expect(file.body.data.attributes).toMatchObject({
          name: 'installer.pdf',
          extension: 'pdf',
          size: SIZE,
          sha256,
          status: 'published',
        });
        const listed = await request(t.baseUrl)
          .get(`/v1/files?filter[variant_id]=${variantId}`)
          .set('Authorization', `Bearer ${merchant.testKey}`)
          .expect(200);
        expect(listed.body.data.map((f: { id: string }) => f.id)).toContain(
          fileId,
        );
        // The bytes stored are the bytes sent.
        const download = await fetch(file.body.data.attributes.download_url, {
          headers: { Authorization: `Bearer ${merchant.testKey}` },
        });
        expect(download.status).toBe(200);
        const hash = createHash('sha256');
        for await (const chunk of download.body!) hash.update(chunk);
        expect(hash.digest('hex')).toBe(sha256);

        // Found again by the upload id; the parts are gone, the state stays.
        const head = await tusRequest(t, 'HEAD', uploadPath, merchant.testKey);
        expect(head.headers.get('upload-offset')).toBe(String(SIZE));
        expect(head.headers.get('zest-file-id')).toBe(fileId);
        expect(uploadObjects()).toHaveLength(1);

        // The worker's job removes it once expired; the file stays.
        const uploads = t.app.get(FileUploadService);
        expect(await uploads.deleteExpired(Date.now() + 25 * 3600 * 1000)).toBe(
          1,
        );
        expect(uploadObjects()).toHaveLength(0);
        expect(
          (await tusRequest(t, 'HEAD', uploadPath, merchant.testKey)).status,
        ).toBe(404);
        await request(t.baseUrl)
          .get(`/v1/files/${fileId}`)
          .set('Authorization', `Bearer ${merchant.testKey}`)
          .expect(200);
      },
      LONG,
    );

    it('answers a completion that fails with its error, keeps no file and no bytes; a retry starts over', async () => {
      const files = () =>
        request(t.baseUrl)
          .get(`/v1/files?filter[variant_id]=${variantId}&page[size]=100`)
          .set('Authorization', `Bearer ${merchant.testKey}`)
          .expect(200)
          .then((r) => r.body.data.map((f: { id: string }) => f.id));
      const filesBefore = await files();
      const objectsBefore = fileObjects().length;
      const size = 3 * MIB + 7;
      const content = Buffer.alloc(size, 7);
      content.write('%PDF-1.7\n');
      const sha256 = createHash('sha256').update(content).digest('hex');

      // An empty upload is complete at creation, and refused there.
      const empty = await tusRequest(
        t,
        'POST',
        '/v1/files/uploads',
        merchant.testKey,
        {
          'Upload-Length': '0',
          'Upload-Metadata': metadataHeader({
            variant: variantId,
            filename: 'empty.pdf',
          }),
        },
      );
      expect(empty.status).toBe(422);
      expect(await codeOf(empty)).toBe('empty_file');
      expect(uploadObjects()).toHaveLength(0);

      // The database refuses the file's row when the last byte is in.
      const db = t.app.get(DataSource);
      await db.query(
        `CREATE FUNCTION refuse_files() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'files refused by the test'; END $$`,
      );
      await db.query(
        'CREATE TRIGGER refuse_files BEFORE INSERT ON files FOR EACH ROW EXECUTE FUNCTION refuse_files()',
      );
      let location: string;
      try {
        const created = await tusRequest(
          t,
          'POST',
          '/v1/files/uploads',
          merchant.testKey,
          {
            'Upload-Length': String(size),
            'Upload-Metadata': metadataHeader({
              variant: variantId,
              filename: 'manual.pdf',
            }),
          },
        );
        expect(created.status).toBe(201);
        location = created.headers.get('location')!;
        const patch = (offset: number, end: number) =>
          tusRequest(
            t,
            'PATCH',
            location,
            merchant.testKey,
            {
              'Upload-Offset': String(offset),
              'Content-Type': 'application/offset+octet-stream',
            },
            content.subarray(offset, end),
          );
        expect((await patch(0, 2 * MIB)).status).toBe(204);
        expect(uploadObjects().length).toBeGreaterThan(1);
        const last = await patch(2 * MIB, size);
        expect(last.status).toBe(500);
        expect(last.headers.get('zest-file-id')).toBeNull();
        expect(await codeOf(last)).toBe('internal_error');
      } finally {
        await db.query('DROP TRIGGER refuse_files ON files');
        await db.query('DROP FUNCTION refuse_files()');
      }
      // No file, no bytes: neither the parts nor the file's object stay.
      expect(await files()).toEqual(filesBefore);
      expect(uploadObjects()).toHaveLength(0);
      expect(fileObjects()).toHaveLength(objectsBefore);
      // The upload is gone: resuming it cannot append to it...
      expect(
        (await tusRequest(t, 'HEAD', location, merchant.testKey)).status,
      ).toBe(404);

      // ...so a client resuming it starts over, and this time it is recorded.
      const creations: string[] = [];
      const finished = await new Promise<tus.HttpResponse>(
        (resolve, reject) => {
          const retry = new tus.Upload(content, {
            endpoint: `${t.baseUrl}/v1/files/uploads`,
            uploadUrl: `${t.baseUrl}${location}`,
            uploadSize: size,
            chunkSize: 2 * MIB,
            headers: { Authorization: `Bearer ${merchant.testKey}` },
            metadata: { variant: variantId, filename: 'manual.pdf' },
            storeFingerprintForResuming: false,
            retryDelays: [],
            onBeforeRequest: (req) => {
              if (req.getMethod() === 'POST') creations.push(req.getURL());
            },
            onSuccess: ({ lastResponse }) => resolve(lastResponse),
            onError: reject,
          });
          retry.start();
        },
      );
      expect(creations).toHaveLength(1);
      const fileId = finished.getHeader('Zest-File-Id');
      expect(fileId).toMatch(/^\d+$/);
      expect(await files()).toEqual([...filesBefore, fileId]);
      const file = await request(t.baseUrl)
        .get(`/v1/files/${fileId}`)
        .set('Authorization', `Bearer ${merchant.testKey}`)
        .expect(200);
      expect(file.body.data.attributes).toMatchObject({
        name: 'manual.pdf',
        size,
        sha256,
      });
      expect(fileObjects()).toHaveLength(objectsBefore + 1);
      // Of the retry, only its state stays (until it expires), as for any completed upload.
      expect(uploadObjects()).toHaveLength(1);
      await t.app
        .get(FileUploadService)
        .deleteExpired(Date.now() + 25 * 3600 * 1000);
      expect(uploadObjects()).toHaveLength(0);
    });

    it('refuses a foreign variant, a size past the limit, and terminates', async () => {
      const create = (key: string, length: number, variant = variantId) =>
        tusRequest(t, 'POST', '/v1/files/uploads', key, {
          'Upload-Length': String(length),
          'Upload-Metadata': metadataHeader({ variant, filename: 'a.bin' }),
        });
      // Another merchant's key cannot create on this variant.
      const foreign = await create(other.testKey, 10);
      expect(foreign.status).toBe(404);
      // Nor this merchant's live key on a test-mode variant.
      expect((await create(merchant.liveKey, 10)).status).toBe(404);
      // No variant named.
      const unnamed = await tusRequest(
        t,
        'POST',
        '/v1/files/uploads',
        merchant.testKey,
        {
          'Upload-Length': '10',
        },
      );
      expect(unnamed.status).toBe(400);
      expect(await codeOf(unnamed)).toBe('malformed_upload');
      // The protocol's own refusals are JSON:API errors too.
      const unversioned = await fetch(`${t.baseUrl}/v1/files/uploads`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${merchant.testKey}`,
          'Upload-Length': '10',
        },
      });
      expect(unversioned.status).toBe(412);
      expect(await codeOf(unversioned)).toBe('tus_resumable_required');
      // Past the limit: 413 before anything is stored.
      const tooBig = await create(merchant.testKey, LIMIT + 1);
      expect(tooBig.status).toBe(413);
      expect(await codeOf(tooBig)).toBe('file_too_large');
      expect(uploadObjects()).toHaveLength(0);
      // A body longer than the declared length: 413, nothing appended.
      const small = await create(merchant.testKey, 10);
      expect(small.status).toBe(201);
      const location = small.headers.get('location')!;
      const over = await tusRequest(
        t,
        'PATCH',
        location,
        merchant.testKey,
        {
          'Upload-Offset': '0',
          'Content-Type': 'application/offset+octet-stream',
        },
        Buffer.alloc(11),
      );
      expect(over.status).toBe(413);
      expect(await codeOf(over)).toBe('file_too_large');
      const misplaced = await tusRequest(
        t,
        'PATCH',
        location,
        merchant.testKey,
        {
          'Upload-Offset': '5',
          'Content-Type': 'application/offset+octet-stream',
        },
        Buffer.alloc(5),
      );
      expect(misplaced.status).toBe(409);
      expect(await codeOf(misplaced)).toBe('upload_offset_mismatch');
      const head = await tusRequest(t, 'HEAD', location, merchant.testKey);
      expect(head.headers.get('upload-offset')).toBe('0');
      // Idempotency-Key does not apply to tus: the creation is not replayed.
      const keyed = (n: number) =>
        tusRequest(t, 'POST', '/v1/files/uploads', merchant.testKey, {
          'Upload-Length': String(n),
          'Upload-Metadata': metadataHeader({
            variant: variantId,
            filename: 'b.bin',
          }),
          'Idempotency-Key': 'same-key',
        });
      const [a, b] = [await keyed(5), await keyed(5)];
      expect(a.status).toBe(201);
      expect(b.status).toBe(201);
      expect(a.headers.get('location')).not.toBe(b.headers.get('location'));
      // Termination removes the upload and its bytes.
      for (const path of [
        location,
        a.headers.get('location')!,
        b.headers.get('location')!,
      ]) {
        expect(
          (await tusRequest(t, 'DELETE', path, merchant.testKey)).status,
        ).toBe(204);
        expect(
          (await tusRequest(t, 'HEAD', path, merchant.testKey)).status,
        ).toBe(404);
      }
      expect(uploadObjects()).toHaveLength(0);
      // The tus body type is refused elsewhere.
      const elsewhere = await fetch(`${t.baseUrl}/v1/products`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${merchant.testKey}`,
          'Content-Type': 'application/offset+octet-stream',
        },
        body: Buffer.alloc(4),
      });
      expect(elsewhere.status).toBe(415);
    });
  },
);
