import { randomUUID } from 'node:crypto';
import { extname } from 'node:path';
import { Injectable } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import { FilterValue, ListQuery, Page } from '../../common/list-query';
import { Transactions } from '../../database/transactions';
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

/** Files hold at most what one bytea row may comfortably carry. */
export const MAX_FILE_BYTES = 256 * 1024 * 1024;

@Injectable()
export class FileService {
  constructor(
    private readonly files: FileRepository,
    private readonly variants: VariantRepository,
    private readonly transactions: Transactions,
  ) {}

  /**
   * Attaches a downloadable file to a variant in the scope. The spec has no
   * write route for files, so factories, the demo seed and future upload
   * routes call this.
   */
  async attach(
    scope: CatalogScope,
    variantId: number,
    input: NewFile,
  ): Promise<CatalogFile> {
    const name = input.name.trim();
    if (!name || name.length > 255 || /[/\\]/.test(name))
      throw CatalogErrors.invalidFileName();
    if (input.content.length > MAX_FILE_BYTES)
      throw CatalogErrors.fileTooLarge();
    return this.transactions.run(async (manager) => {
      const variant = await this.variants.lockInScope(
        manager,
        scope,
        variantId,
      );
      if (!variant) throw CatalogErrors.variantNotFound();
      return this.files.insert(
        manager,
        {
          identifier: randomUUID(),
          storeId: variant.storeId,
          variantId: variant.id,
          testMode: variant.testMode,
          name,
          extension: extname(name).replace(/^\./, '').toLowerCase(),
          size: input.content.length,
          contentType: input.contentType ?? 'application/octet-stream',
          version: input.version ?? '',
          sort: input.sort ?? (await this.files.nextSort(manager, variant.id)),
          status: input.status ?? 'published',
        },
        input.content,
      );
    });
  }

  /** The bytes behind a `download_url` (whose signature the route's guard checked). */
  async download(
    identifier: string,
  ): Promise<{ file: CatalogFile; content: Buffer }> {
    const found = await this.files.findContent(identifier);
    if (!found) throw AppError.notFound();
    return found;
  }

  async findOne(scope: CatalogScope, id: number): Promise<CatalogFile | null> {
    return (await this.files.findInScope(scope, [id]))[0] ?? null;
  }

  findMany(scope: CatalogScope, ids: number[]): Promise<CatalogFile[]> {
    return this.files.findInScope(scope, ids);
  }

  findPage(scope: CatalogScope, query: ListQuery): Promise<Page<CatalogFile>> {
    return this.files.findPage(scope, query);
  }

  findByVariants(
    scope: CatalogScope,
    ids: FilterValue[],
  ): Promise<CatalogFile[]> {
    return this.files.findByVariants(scope, ids);
  }
}
