import { Readable } from 'node:stream';

export const FILE_STORAGE = Symbol('FILE_STORAGE');

export interface StoredFile {
  size: number;
  stream: Readable;
}

/**
 * Where generated files live. Keys are relative paths of safe segments
 * (`invoices/orders/12/ab34.pdf`); the local-disk implementation maps them
 * under STORAGE_DIR, and an object store could implement the same contract.
 */
export interface FileStorage {
  /** Atomic: a reader sees the previous content or the new one, never a partial file. */
  put(key: string, data: Buffer): Promise<void>;
  /** A stream of the file, or null when it does not exist. */
  open(key: string): Promise<StoredFile | null>;
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
