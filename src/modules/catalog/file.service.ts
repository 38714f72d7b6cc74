import { createHash, randomUUID } from 'node:crypto';
import { extname } from 'node:path';
import { pipeline, Readable, Transform } from 'node:stream';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { Transactions } from '../../database/transactions';
import { FILE_STORAGE } from '../../storage/file-storage';
import type { ByteRange, FileStorage } from '../../storage/file-storage';
import { CatalogScope } from './catalog-scope';
import { CatalogFile, FileStatus } from './file.entity';
import { FileRepository } from './file.repository';
import { VariantRepository } from './variant.repository';
import { CatalogErrors } from './catalog.errors';

export interface NewFile {
  /** File name as buyers see it, with its extension (e.g. `guide.pdf`). */
  name: string;
  content: Buffer;
  contentType?: string;
  version?: string;
  sort?: number;
  status?: FileStatus;
}

export interface FileChanges {
  name?: string;
  sort?: number;
}

/** An open download: the file, its bytes (all or `range`) as a stream. */
export interface FileDownload {
  file: CatalogFile;
  stream: Readable;
  range: ByteRange | null;
}

/** What `file-type` needs to recognise nearly every format. */
const SNIFF_BYTES = 4100;

/** Where a file's bytes live: one object per file, named by its public identifier. */
export function fileStorageKey(file: { storeId: number; identifier: string }) {
  return `files/stores/${file.storeId}/${file.identifier}`;
}

/** A buyer-facing name: no path separators or control characters (they end up in headers). */
export function checkFileName(raw: string): string {
  const name = raw.trim();
  // eslint-disable-next-line no-control-regex
  if (!name || name.length > 255 || /[/\\\u0000-\u001f\u007f]/.test(name))
    throw CatalogErrors.invalidFileName();
  return name;
}

/** Counts, hashes and keeps the head of what passes; fails past `maxBytes`. */
class Inspector extends Transform {
  readonly hash = createHash('sha256');
  /** Not `size`: the S3 SDK would take a stream's `size` for its length. */
  bytesSeen = 0;
  private readonly headChunks: Buffer[] = [];
  private headLength = 0;

  constructor(private readonly maxBytes: number) {
    super();
  }

  get head(): Buffer {
    return Buffer.concat(this.headChunks);
  }

  override _transform(
    chunk: Buffer,
    _encoding: BufferEncoding,
    done: (error?: Error | null, data?: Buffer) => void,
  ) {
    this.bytesSeen += chunk.length;
    if (this.bytesSeen > this.maxBytes)
      return done(CatalogErrors.fileTooLarge(this.maxBytes));
    this.hash.update(chunk);
    if (this.headLength < SNIFF_BYTES) {
      const part = chunk.subarray(0, SNIFF_BYTES - this.headLength);
      this.headChunks.push(Buffer.from(part));
      this.headLength += part.length;
    }
    done(null, chunk);
  }
}

async function sniffContentType(head: Buffer): Promise<string> {
  const { fileTypeFromBuffer } = await import('file-type');
  return (await fileTypeFromBuffer(head))?.mime ?? 'application/octet-stream';
}

@Injectable()
export class FileService {
  private readonly logger = new Logger(FileService.name);

  constructor(
    private readonly files: FileRepository,
    private readonly variants: VariantRepository,
    private readonly transactions: Transactions,
    @Inject(FILE_STORAGE) private readonly storage: FileStorage,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** FILE_MAX_BYTES. */
  get maxUploadBytes(): number {
    return this.config.storage.fileMaxBytes;
  }

  /**
   * Attaches a file held in memory to a variant in the scope (factories and
   * the demo seed); uploads stream through `upload`.
   */
  attach(
    scope: CatalogScope,
    variantId: number,
    input: NewFile,
  ): Promise<CatalogFile> {
    return this.store(scope, variantId, Readable.from([input.content]), {
      name: input.name,
      contentType: input.contentType,
      version: input.version,
      sort: input.sort,
      status: input.status,
    });
  }

  /**
   * Streams an upload into storage while counting, hashing and sniffing it,
   * then records the file (after the ones already there unless `sort` says
   * otherwise). Nothing is kept when the stream fails, is too large or
   * empty, or the variant is gone by the time it is recorded.
   */
  upload(
    scope: CatalogScope,
    variantId: number,
    source: Readable,
    input: { name: string; sort?: number },
  ): Promise<CatalogFile> {
    return this.store(scope, variantId, source, input);
  }

  private async store(
    scope: CatalogScope,
    variantId: number,
    source: Readable,
    input: Omit<NewFile, 'content'>,
  ): Promise<CatalogFile> {
    const name = checkFileName(input.name);
    const [variant] = await this.variants.findInScope(scope, [variantId]);
    if (!variant) {
      source.resume();
      throw CatalogErrors.variantNotFound();
    }
    const identifier = randomUUID();
    const key = fileStorageKey({ storeId: variant.storeId, identifier });
    const inspector = new Inspector(this.config.storage.fileMaxBytes);
    // pipeline, not pipe: it also sees a source that failed before this
    // point (the parser destroys an upload cut short with its error), and
    // a source that fails later fails the write, so no partial file is kept.
    await this.storage.putStream(
      key,
      pipeline(source, inspector, () => {}),
    );
    try {
      if (inspector.bytesSeen === 0) throw CatalogErrors.emptyFile();
      const contentType =
        input.contentType ?? (await sniffContentType(inspector.head));
      return await this.transactions.run(async (manager) => {
        const locked = await this.variants.lockInScope(
          manager,
          scope,
          variantId,
        );
        if (!locked) throw CatalogErrors.variantNotFound();
        return this.files.insert(manager, {
          identifier,
          storeId: locked.storeId,
          variantId: locked.id,
          testMode: locked.testMode,
          name,
          extension: extname(name).replace(/^\./, '').toLowerCase(),
          size: inspector.bytesSeen,
          contentType,
          version: input.version ?? '',
          sort: input.sort ?? (await this.files.nextSort(manager, locked.id)),
          status: input.status ?? 'published',
          storageKey: key,
          sha256: inspector.hash.digest('hex'),
          deletedAt: null,
        });
      });
    } catch (error) {
      await this.removeObject(key);
      throw error;
    }
  }

  /** PATCH: the buyer-facing name and the position among the variant's files. */
  async update(
    scope: CatalogScope,
    id: number,
    changes: FileChanges,
  ): Promise<CatalogFile> {
    const fields: Partial<CatalogFile> = {};
    if (changes.name !== undefined) {
      fields.name = checkFileName(changes.name);
      fields.extension = extname(fields.name).replace(/^\./, '').toLowerCase();
    }
    if (changes.sort !== undefined) fields.sort = changes.sort;
    return this.transactions.run(async (manager) => {
      const file = await this.files.lockInScope(manager, scope, id);
      if (!file) throw AppError.notFound();
      return this.files.update(manager, file, fields);
    });
  }

  /**
   * DELETE: the file stops being offered (API lists, new orders, receipts
   * of orders placed later). Orders placed before keep downloading it, so
   * its bytes stay while any such order is paid; with none they are removed.
   */
  async remove(scope: CatalogScope, id: number): Promise<void> {
    const removed = await this.transactions.run(async (manager) => {
      const file = await this.files.lockInScope(manager, scope, id);
      if (!file) throw AppError.notFound();
      await this.files.markDeleted(manager, file.id);
      const sold = await this.files.isSoldBefore(manager, file);
      if (sold) return null;
      await this.files.detachBytes(manager, file.id);
      return file.storageKey;
    });
    if (removed) await this.removeObject(removed);
  }

  /**
   * A file's bytes (a `range` of them if given) for a link whose signature
   * the route checked; files removed by DELETE are still served to the
   * orders that keep them (the caller decides).
   */
  async open(
    file: CatalogFile,
    range: ByteRange | null,
  ): Promise<FileDownload | null> {
    if (file.storageKey) {
      const stored = await this.storage.open(
        file.storageKey,
        range ?? undefined,
      );
      return stored && { file, stream: stored.stream, range };
    }
    // Not yet moved out of the database (see FileContentMover).
    const content = await this.files.findContent(file.id);
    if (!content) return null;
    const bytes = range
      ? content.subarray(range.start, range.end + 1)
      : content;
    return { file, stream: Readable.from([bytes]), range };
  }

  /** A presigned URL of the backend (S3), or null when the API serves the bytes. */
  presignedUrl(file: CatalogFile, expiresInSeconds: number) {
    if (!file.storageKey) return Promise.resolve(null);
    return this.storage.presignedUrl(file.storageKey, {
      expiresInSeconds,
      fileName: file.name,
      contentType: file.contentType,
    });
  }

  findByIdentifier(identifier: string): Promise<CatalogFile | null> {
    return this.files.findByIdentifier(identifier);
  }

  /** The files a variant delivers, in order, optionally as they were offered at `at`. */
  findDeliverable(variantId: number, at: Date): Promise<CatalogFile[]> {
    return this.files.findDeliverable(variantId, at);
  }

  private async removeObject(key: string): Promise<void> {
    try {
      await this.storage.delete(key);
    } catch (error) {
      // An orphan object costs space, not correctness: no row points at it.
      this.logger.warn({ err: error, key }, 'Could not remove a stored file');
    }
  }
}
