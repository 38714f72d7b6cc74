import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, mkdtempSync, openAsBlob, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestS3 } from '../../test/support/s3-server';

/**
 * The file rows: a large file (sparse: made in no time, read as zeros)
 * uploaded through the API the two ways a merchant would (tus, in chunks;
 * one streaming multipart `POST /v1/files`) and downloaded through its
 * signed link, on local disk and on S3 (an s3rver started here; the link
 * redirects to a presigned URL, which fetch follows). Each download is cut
 * off past the middle and resumed with `Range`. The API process's RSS,
 * sampled every 50 ms, must grow by less than 64 MiB during the upload and
 * during the download, and the bytes downloaded must hash to the upload's
 * SHA-256.
 */

export interface FileBenchContext {
  size: number;
  port: number;
  apiKey: string;
  productId: number;
  startApi(env: Record<string, string>): Promise<ChildProcess>;
  stopApi(api: ChildProcess): Promise<void>;
  rssMiB(pid: number | undefined): number;
}

export interface FileRowResult {
  name: string;
  uploadMs: number;
  downloadMs: number;
  uploadGrowthMiB: number;
  downloadGrowthMiB: number;
  peakRssMiB: number;
  checksumsMatch: boolean;
  rangeResumed: boolean;
  failures: string[];
  pass: boolean;
}

const RSS_BUDGET_MIB = 64;
const TUS_CHUNK = 256 * 1024 ** 2;
const WARM_UP_BYTES = 64 * 1024 ** 2;

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Samples a process's RSS; `mark()` starts a phase, returns the last phase's growth. */
class RssSampler {
  private base: number;
  private peak: number;
  overallPeak: number;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly read: () => number) {
    this.base = this.peak = this.overallPeak = read();
    this.timer = setInterval(() => this.sample(), 50);
  }

  private sample() {
    const rss = this.read();
    this.peak = Math.max(this.peak, rss);
    this.overallPeak = Math.max(this.overallPeak, rss);
  }

  /** Growth since the last mark (or start); the next phase starts here. */
  mark(): number {
    this.sample();
    const growth = this.peak - this.base;
    this.base = this.peak = this.read();
    return growth;
  }

  stop() {
    clearInterval(this.timer);
  }
}

interface UploadedFile {
  id: string;
  sha256: string;
  downloadUrl: string;
}

function fileOf(body: unknown): UploadedFile {
  const data = (
    body as {
      data: {
        id: string;
        attributes: { sha256: string; download_url: string };
      };
    }
  ).data;
  return {
    id: data.id,
    sha256: data.attributes.sha256,
    downloadUrl: data.attributes.download_url,
  };
}

async function multipartUpload(
  base: string,
  apiKey: string,
  variantId: string,
  path: string,
): Promise<UploadedFile> {
  const form = new FormData();
  form.append(
    'data',
    JSON.stringify({
      data: {
        type: 'files',
        relationships: {
          variant: { data: { type: 'variants', id: variantId } },
        },
      },
    }),
  );
  form.append('file', await openAsBlob(path), 'big.bin');
  const response = await fetch(`${base}/v1/files`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${apiKey}` },
    body: form,
  });
  if (response.status !== 201)
    throw new Error(
      `POST /v1/files answered ${response.status}: ${await response.text()}`,
    );
  return fileOf(await response.json());
}

/** tus 1.0.0 as a client sends it: create, then PATCH chunk after chunk. */
async function tusUpload(
  base: string,
  apiKey: string,
  variantId: string,
  path: string,
  size: number,
): Promise<UploadedFile> {
  const headers = {
    Authorization: `Bearer ${apiKey}`,
    'Tus-Resumable': '1.0.0',
  };
  const metadata = [
    ['variant', variantId],
    ['filename', 'big.bin'],
  ]
    .map(([k, v]) => `${k} ${Buffer.from(v).toString('base64')}`)
    .join(',');
  const created = await fetch(`${base}/v1/files/uploads`, {
    method: 'POST',
    headers: {
      ...headers,
      'Upload-Length': String(size),
      'Upload-Metadata': metadata,
    },
  });
  if (created.status !== 201)
    throw new Error(`tus creation answered ${created.status}`);
  const location = new URL(created.headers.get('location')!, base).href;
  const blob = await openAsBlob(path);
  let fileId: string | null = null;
  for (let offset = 0; offset < size; offset += TUS_CHUNK) {
    const end = Math.min(size, offset + TUS_CHUNK);
    const patched = await fetch(location, {
      method: 'PATCH',
      headers: {
        ...headers,
        'Upload-Offset': String(offset),
        'Content-Type': 'application/offset+octet-stream',
      },
      body: blob.slice(offset, end),
    });
    if (patched.status !== 204)
      throw new Error(
        `tus PATCH at ${offset} answered ${patched.status}: ${await patched.text()}`,
      );
    if (patched.headers.get('upload-offset') !== String(end))
      throw new Error(`tus PATCH at ${offset}: offset not ${end}`);
    fileId = patched.headers.get('zest-file-id');
  }
  if (!fileId) throw new Error('the last tus PATCH named no file');
  const file = await fetch(`${base}/v1/files/${fileId}`, {
    headers: { Authorization: `Bearer ${apiKey}` },
  });
  return fileOf(await file.json());
}

/**
 * Downloads through the signed link, stops reading past the middle (the
 * connection is dropped), then resumes with `Range: bytes=<offset>-`.
 * Returns the SHA-256 of the bytes put together and whether the resumed
 * answer was the 206 of the right range.
 */
async function resumedDownload(
  url: string,
  size: number,
): Promise<{ sha256: string; rangeResumed: boolean }> {
  const hash = createHash('sha256');
  const cutAt = Math.floor(size / 2) + 12_345;
  let offset = 0;
  const abort = new AbortController();
  const first = await fetch(url, { signal: abort.signal });
  if (first.status !== 200)
    throw new Error(`download answered ${first.status}`);
  const reader = first.body!.getReader();
  while (offset < cutAt) {
    const { done, value } = await reader.read();
    if (done) break;
    const part = value.subarray(0, Math.min(value.length, cutAt - offset));
    hash.update(part);
    offset += part.length;
  }
  abort.abort();
  await reader.cancel().catch(() => undefined);

  const rest = await fetch(url, { headers: { Range: `bytes=${offset}-` } });
  const rangeResumed =
    rest.status === 206 &&
    rest.headers.get('content-range') ===
      `bytes ${offset}-${size - 1}/${size}` &&
    Number(rest.headers.get('content-length')) === size - offset;
  let received = 0;
  for await (const chunk of rest.body!) {
    hash.update(chunk);
    received += (chunk as Uint8Array).length;
  }
  return {
    sha256: hash.digest('hex'),
    rangeResumed: rangeResumed && offset + received === size,
  };
}

async function sparseFile(path: string, size: number): Promise<string> {
  const handle = await open(path, 'w');
  await handle.truncate(size);
  await handle.close();
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path))
    hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export async function fileRows(
  ctx: FileBenchContext,
): Promise<FileRowResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'zest-bench-files-'));
  const base = `http://127.0.0.1:${ctx.port}`;
  const results: FileRowResult[] = [];
  /** How long each API process took to stop (SIGTERM to exit). */
  const stopMs: string[] = [];
  const gib = (ctx.size / 1024 ** 3).toFixed(2);
  try {
    const path = join(dir, 'big.bin');
    const expected = await sparseFile(path, ctx.size);
    const warmPath = join(dir, 'warm.bin');
    await sparseFile(warmPath, WARM_UP_BYTES);
    const backends = [
      { label: 'local disk', s3: false },
      { label: 'S3', s3: true },
    ];
    for (const backend of backends) {
      const s3 = backend.s3 ? await startTestS3('bench') : null;
      const api = await ctx.startApi(
        s3
          ? { STORAGE_URL: s3.storageUrl, ...s3.env }
          : { STORAGE_DIR: join(dir, 'storage') },
      );
      try {
        const variants = await fetch(
          `${base}/v1/variants?filter%5Bproduct_id%5D=${ctx.productId}`,
          { headers: { Authorization: `Bearer ${ctx.apiKey}` } },
        );
        const variantId = (
          (await variants.json()) as { data: { id: string }[] }
        ).data[0].id;
        const methods = [
          {
            label: `tus, ${TUS_CHUNK / 1024 ** 2} MiB PATCHes`,
            upload: (file: string, size: number) =>
              tusUpload(base, ctx.apiKey, variantId, file, size),
          },
          {
            label: 'multipart POST /v1/files',
            upload: (file: string) =>
              multipartUpload(base, ctx.apiKey, variantId, file),
          },
        ];
        for (const method of methods) {
          // A warm-up through the same path first: what the first request
          // loads and sizes once (code, the S3 client, V8's young
          // generation) is not what a large file costs.
          const warm = await method.upload(warmPath, WARM_UP_BYTES);
          await resumedDownload(warm.downloadUrl, WARM_UP_BYTES);
          await sleep(1000);
          const rss = new RssSampler(() => ctx.rssMiB(api.pid));
          const failures: string[] = [];
          let uploadMs = 0;
          let downloadMs = 0;
          let uploadGrowth = NaN;
          let downloadGrowth = NaN;
          let checksumsMatch = false;
          let rangeResumed = false;
          try {
            let started = Date.now();
            const file = await method.upload(path, ctx.size);
            uploadMs = Date.now() - started;
            uploadGrowth = rss.mark();
            started = Date.now();
            const download = await resumedDownload(file.downloadUrl, ctx.size);
            downloadMs = Date.now() - started;
            downloadGrowth = rss.mark();
            checksumsMatch =
              file.sha256 === expected && download.sha256 === expected;
            rangeResumed = download.rangeResumed;
            if (!checksumsMatch) failures.push('checksums differ');
            if (!rangeResumed) failures.push('Range resume wrong');
          } catch (error) {
            failures.push(
              error instanceof Error ? error.message : String(error),
            );
          } finally {
            rss.stop();
          }
          const rssOk =
            uploadGrowth < RSS_BUDGET_MIB && downloadGrowth < RSS_BUDGET_MIB;
          if (!rssOk && failures.length === 0)
            failures.push(`RSS grew ${RSS_BUDGET_MIB} MiB or more`);
          results.push({
            name: `file of ${gib} GiB on ${backend.label}: ${method.label}, then download resumed with Range`,
            uploadMs,
            downloadMs,
            uploadGrowthMiB: uploadGrowth,
            downloadGrowthMiB: downloadGrowth,
            peakRssMiB: rss.overallPeak,
            checksumsMatch,
            rangeResumed,
            failures,
            pass: failures.length === 0 && rssOk,
          });
        }
      } finally {
        const stopping = Date.now();
        await ctx.stopApi(api);
        stopMs.push(
          `${backend.label} ${((Date.now() - stopping) / 1000).toFixed(1)} s`,
        );
        await s3?.close();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  process.stderr.write(
    `[bench] file rows' API processes stopped in: ${stopMs.join(', ')}\n`,
  );
  return results;
}
