import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startTestS3, TestS3 } from './s3-server';

export interface TestStorage {
  /** What the app needs to use this backend (STORAGE_DIR or STORAGE_URL). */
  env: Record<string, string>;
  /** The S3 stand-in, null on local disk. */
  s3: TestS3 | null;
  /**
   * The objects stored under a key prefix (`files/stores`, `uploads`), read
   * from the disk behind the backend: one entry per object.
   */
  objects(prefix: string): string[];
  close(): Promise<void>;
}

/**
 * The storage of a test app on `backend`, 'local disk' (under `dir`/storage)
 * or 'S3' (an s3rver bucket named `bucket`, whose credentials go into
 * process.env, where the AWS SDK reads them).
 */
export async function startTestStorage(
  backend: string,
  dir: string,
  bucket: string,
): Promise<TestStorage> {
  if (backend === 'S3') {
    const s3 = await startTestS3(bucket);
    Object.assign(process.env, s3.env);
    return {
      env: { STORAGE_URL: s3.storageUrl },
      s3,
      objects: (prefix) =>
        (readdirSync(s3.directory, { recursive: true }) as string[]).filter(
          (path) => path.includes(prefix) && path.endsWith('._S3rver_object'),
        ),
      close: () => s3.close(),
    };
  }
  const root = join(dir, 'storage');
  return {
    env: { STORAGE_DIR: root },
    s3: null,
    objects: (prefix) => {
      try {
        return readdirSync(join(root, prefix), {
          recursive: true,
          withFileTypes: true,
        })
          .filter((entry) => entry.isFile())
          .map((entry) => entry.name);
      } catch {
        return [];
      }
    },
    close: async () => {},
  };
}
