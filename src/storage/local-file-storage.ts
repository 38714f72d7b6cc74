import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import {
  FileHandle,
  mkdir,
  open,
  readdir,
  rename,
  rm,
  stat,
} from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import {
  assertSafeKey,
  ByteRange,
  FileStorage,
  StoredFile,
} from './file-storage';

/** A write in progress, next to its target; a key may not end with it. */
const TEMP_SUFFIX = '.tmp';

function isMissing(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'ENOENT';
}

/** The entries of a directory; none when it does not exist. */
async function entriesOf(dir: string) {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if (isMissing(error)) return [];
    throw error;
  }
}

/** FileStorage on a local (or shared network) directory. */
export class LocalFileStorage implements FileStorage {
  private readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  put(key: string, data: Buffer): Promise<void> {
    return this.write(key, (handle) => handle.writeFile(data));
  }

  putStream(key: string, source: Readable): Promise<void> {
    return this.write(key, async (handle) => {
      // One chunk in memory at a time; the source waits while a write runs.
      for await (const chunk of source) await handle.write(chunk as Buffer);
    });
  }

  private async write(
    key: string,
    fill: (handle: FileHandle) => Promise<void>,
  ): Promise<void> {
    if (key.endsWith(TEMP_SUFFIX))
      throw new Error(`Reserved storage key: ${JSON.stringify(key)}`);
    const target = this.path(key);
    await mkdir(dirname(target), { recursive: true });
    // Same directory as the target, so rename is atomic (one filesystem).
    const temp = `${target}.${randomBytes(6).toString('hex')}${TEMP_SUFFIX}`;
    const handle = await open(temp, 'wx', 0o640);
    try {
      await fill(handle);
      await handle.sync();
    } catch (error) {
      await handle.close();
      await rm(temp, { force: true });
      throw error;
    }
    await handle.close();
    try {
      await rename(temp, target);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }

  async open(key: string, range?: ByteRange): Promise<StoredFile | null> {
    const path = this.path(key);
    let handle;
    try {
      handle = await open(path, 'r');
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
    try {
      const { size } = await handle.stat();
      if (range && (range.start > range.end || range.end >= size))
        throw new RangeError(
          `Range ${range.start}-${range.end} outside ${size} bytes`,
        );
      // The stream owns the handle from here and closes it when done.
      return {
        size,
        stream: createReadStream('', { fd: handle, ...range }),
      };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  /** Local files are served through the API's own signed route. */
  presignedUrl(): Promise<string | null> {
    return Promise.resolve(null);
  }

  async exists(key: string): Promise<boolean> {
    try {
      return (await stat(this.path(key))).isFile();
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }

  async list(prefix: string): Promise<string[]> {
    return (await entriesOf(this.path(prefix)))
      .filter((entry) => entry.isFile() && !entry.name.endsWith(TEMP_SUFFIX))
      .map((entry) => `${prefix}/${entry.name}`);
  }

  async removeStaleTemporaryFiles(olderThanMs: number): Promise<number> {
    const cutoff = Date.now() - olderThanMs;
    let removed = 0;
    // Symbolic links are neither followed nor removed: only what put() made.
    const sweep = async (dir: string): Promise<void> => {
      for (const entry of await entriesOf(dir)) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) {
          await sweep(path);
        } else if (entry.isFile() && entry.name.endsWith(TEMP_SUFFIX)) {
          // A writer at work is seconds old; null = it has just been renamed.
          const stats = await stat(path).catch(() => null);
          if (stats && stats.mtimeMs < cutoff) {
            await rm(path, { force: true });
            removed++;
          }
        }
      }
    };
    await sweep(this.root);
    return removed;
  }

  private path(key: string): string {
    assertSafeKey(key);
    const path = join(this.root, ...key.split('/'));
    // Belt and braces: the checked key can only resolve inside the root.
    if (!path.startsWith(this.root + sep)) {
      throw new Error(`Unsafe storage key: ${JSON.stringify(key)}`);
    }
    return path;
  }
}
