import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';

const MIB = 1024 * 1024;
/** Byte n of a generated file is n % 251 (from its header on). */
const PERIOD = 251;
const PATTERN = Buffer.from(
  Array.from({ length: MIB + PERIOD }, (_, n) => n % PERIOD),
);
const PDF_HEADER = '%PDF-1.7\n';

/**
 * A file of `size` bytes that starts like a PDF (so the type is sniffed) and
 * goes on with byte n = n % 251; returns its SHA-256 (hex). Written from one
 * precomputed pattern, a mebibyte at a time.
 */
export async function generatePatternFile(
  path: string,
  size: number,
): Promise<string> {
  const hash = createHash('sha256');
  const handle = await open(path, 'w');
  for (let offset = 0; offset < size; offset += MIB) {
    const length = Math.min(MIB, size - offset);
    const start = offset % PERIOD;
    let part = PATTERN.subarray(start, start + length);
    if (offset === 0) {
      part = Buffer.from(part);
      part.write(PDF_HEADER);
    }
    hash.update(part);
    await handle.write(part);
  }
  await handle.close();
  return hash.digest('hex');
}

/**
 * The `data` part of a POST /v1/files upload: a `files` document for the
 * variant, with `attributes` when given.
 */
export function filesDocument(
  variantId: string,
  attributes?: Record<string, unknown>,
): string {
  return JSON.stringify({
    data: {
      type: 'files',
      ...(attributes ? { attributes } : {}),
      relationships: {
        variant: { data: { type: 'variants', id: variantId } },
      },
    },
  });
}

/** POST /v1/files with a multipart body as built (any parts, in any order). */
export function postMultipart(
  baseUrl: string,
  apiKey: string,
  form: FormData,
): Promise<Response> {
  return fetch(`${baseUrl}/v1/files`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${apiKey}` },
    body: form,
  });
}

/** Uploads `file` as `name` to the variant, as a merchant's multipart POST /v1/files does. */
export function uploadFile(
  baseUrl: string,
  apiKey: string,
  upload: {
    variantId: string;
    file: Blob;
    name: string;
    attributes?: Record<string, unknown>;
  },
): Promise<Response> {
  const form = new FormData();
  form.append('data', filesDocument(upload.variantId, upload.attributes));
  form.append('file', upload.file, upload.name);
  return postMultipart(baseUrl, apiKey, form);
}
