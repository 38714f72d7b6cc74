import { createHash } from 'node:crypto';
import { createReadStream, mkdtempSync, openAsBlob, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auth } from '../harness/measure';
import { args, PORTS, QUICK } from '../harness/options';
import {
  cpuTicks,
  memory,
  sleep,
  startExtraApi,
  stealSince,
  stop,
} from '../harness/processes';
import { addRow } from '../harness/table';
import type { BenchState } from '../state';

/**
 * A 2 GiB file (sparse: made in no time, read as zeros) uploaded through
 * `POST /v1/files` and downloaded through its signed link, on a separate
 * API process with local-disk storage: its RSS, sampled every 50 ms, must
 * grow by less than 64 MiB while the bytes pass (streams, not buffers), and
 * the download's SHA-256 must match the upload's.
 */
export async function files(state: BenchState) {
  const size = Math.round(
    Number(args['file-gib'] ?? (QUICK ? 0.25 : 2)) * 1024 ** 3,
  );
  const dir = mkdtempSync(join(tmpdir(), 'zest-bench-files-'));
  const api = await startExtraApi('api (files)', PORTS.files, {
    STORAGE_DIR: join(dir, 'storage'),
  });
  try {
    const base = `http://127.0.0.1:${PORTS.files}`;
    const product = await fetch(
      `${base}/v1/variants?filter%5Bproduct_id%5D=${state.productIds[0]}`,
      { headers: auth(state.apiKey) },
    );
    const variantId = ((await product.json()) as { data: { id: string }[] })
      .data[0].id;
    const path = join(dir, 'big.bin');
    const handle = await open(path, 'w');
    await handle.truncate(size);
    await handle.close();
    const expected = createHash('sha256');
    for await (const chunk of createReadStream(path))
      expected.update(chunk as Buffer);
    const sha256 = expected.digest('hex');

    await sleep(1000);
    const before = memory(api.pid).rss;
    let peak = before;
    const sampler = setInterval(
      () => (peak = Math.max(peak, memory(api.pid).rss)),
      50,
    );
    const ticks = cpuTicks();
    const started = Date.now();
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
    const uploaded = await fetch(`${base}/v1/files`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${state.apiKey}` },
      body: form,
    });
    const file = (await uploaded.json()) as {
      data: { attributes: { sha256: string; download_url: string } };
    };
    const uploadMs = Date.now() - started;
    const uploadGrowth = peak - before;
    // The download is measured from where the upload left the RSS.
    const beforeDownload = memory(api.pid).rss;
    peak = beforeDownload;
    const download = await fetch(file.data.attributes.download_url);
    const actual = createHash('sha256');
    for await (const chunk of download.body!) actual.update(chunk);
    const downloaded = actual.digest('hex');
    const totalMs = Date.now() - started;
    clearInterval(sampler);
    const downloadGrowth = peak - beforeDownload;
    const ok =
      uploaded.status === 201 &&
      download.status === 200 &&
      file.data.attributes.sha256 === sha256 &&
      downloaded === sha256;
    addRow({
      name: `file of ${(size / 1024 ** 3).toFixed(2)} GiB: upload, then download (local disk)`,
      zest: {
        requestsPerSecond: 2000 / totalMs,
        okPerSecond: ok ? 2000 / totalMs : 0,
        p50: uploadMs,
        p99: totalMs - uploadMs,
        ok: ok ? 2 : 0,
        non2xx:
          (uploaded.status === 201 ? 0 : 1) + (download.status === 200 ? 0 : 1),
        errors: ok ? 0 : 1,
        timeouts: 0,
        statusCounts: {},
        peakRssMiB: Math.max(before + uploadGrowth, peak),
        stealPercent: stealSince(ticks),
      },
      budget: 'API RSS grows < 64 MiB (upload, download)',
      pass: ok && uploadGrowth < 64 && downloadGrowth < 64,
      note: `p50 = upload ms, p99 = download ms; RSS +${uploadGrowth.toFixed(0)} MiB uploading, +${downloadGrowth.toFixed(0)} MiB downloading; checksums ${ok ? 'match' : 'DIFFER'}`,
    });
  } finally {
    await stop(api);
    rmSync(dir, { recursive: true, force: true });
  }
}
