import { Readable } from 'node:stream';

export const FILE_STORAGE = Symbol('FILE_STORAGE');

export interface StoredFile {
  /** The whole file's size in bytes, also when only a range is streamed. */
  size: number;
  stream: Readable;
}

/** Bytes `start` to `end`, both included (as in an HTTP `Range`). */
export interface ByteRange {
  start: number;
  end: number;
}

export interface PresignOptions {
  expiresInSeconds: number;
  /** Sent back as `Content-Disposition: attachment` with this name. */
  fileName: string;
  contentType: string;
}

/**
 * Where files live: uploads and generated invoice PDFs. Keys are relative
 * paths of safe segments (`invoices/orders/12/ab34.pdf`); the local-disk
 * implementation maps them under STORAGE_DIR, the S3 one under the bucket
 * (and prefix) of STORAGE_URL.
 */
export interface FileStorage {
  /** Atomic: a reader sees the previous content or the new one, never a partial file. */
  put(key: string, data: Buffer): Promise<void>;
  /**
   * Stores what `source` yields, in constant memory, atomically as `put`
   * (temporary file then rename; multipart upload then complete). When the
   * source fails, nothing is stored and its error is thrown.
   */
  putStream(key: string, source: Readable): Promise<void>;
  /** A stream of the file (or of `range`, which must lie inside it), or null when it does not exist. */
  open(key: string, range?: ByteRange): Promise<StoredFile | null>;
  /**
   * A URL from which a client downloads the file directly, valid for a
   * while; null from a backend that cannot make one (local disk).
   */
  presignedUrl(key: string, options: PresignOptions): Promise<string | null>;
  exists(key: string): Promise<boolean>;
  /** Removes the file; a missing file is not an error. */
  delete(key: string): Promise<void>;
  /** The keys of the complete files directly under `prefix` (a folder key), in no order; none if it is missing. */
  list(prefix: string): Promise<string[]>;
  /**
   * Removes what writes interrupted by a crash left behind, untouched for
   * `olderThanMs`; returns how many. Nothing to do where writes are atomic
   * uploads.
   */
  removeStaleTemporaryFiles(olderThanMs: number): Promise<number>;
}

const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/**
 * Keys come from code, never raw from a request, but they are still checked:
 * no absolute paths, no `.`/`..` segments, no separators other than `/`.
 */
export function assertSafeKey(key: string): void {
  const segments = key.split('/');
  const safe =
    key.length <= 512 &&
    segments.every((segment) => SEGMENT.test(segment) && !/\.\./.test(segment));
  if (!safe) throw new Error(`Unsafe storage key: ${JSON.stringify(key)}`);
}
