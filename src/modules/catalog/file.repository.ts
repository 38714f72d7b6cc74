import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { FilterValue, ListQuery, Page } from '../../common/list-query';
import { scoped } from '../../database/tenancy';
import { CatalogScope, loadPage } from './catalog-scope';
import { CatalogFile, FileContent } from './file.entity';

const COLUMNS = {
  filters: { variant_id: 'variant_id' },
  sorts: ['sort', 'name', 'created_at', 'updated_at'],
};

/** Every query for files and their contents. */
@Injectable()
export class FileRepository {
  constructor(
    @InjectRepository(CatalogFile)
    private readonly files: Repository<CatalogFile>,
  ) {}

  findInScope(scope: CatalogScope, ids: number[]): Promise<CatalogFile[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return scoped(
      this.files
        .createQueryBuilder('file')
        .where('file.id IN (:...ids)', { ids })
        .andWhere('file.deleted_at IS NULL'),
      'file',
      scope,
    ).getMany();
  }

  findPage(scope: CatalogScope, query: ListQuery): Promise<Page<CatalogFile>> {
    return loadPage(
      this.files.createQueryBuilder('file').where('file.deleted_at IS NULL'),
      'file',
      scope,
      query,
      COLUMNS,
    );
  }

  findByVariants(
    scope: CatalogScope,
    variantIds: FilterValue[],
  ): Promise<CatalogFile[]> {
    return scoped(
      this.files
        .createQueryBuilder('file')
        .where('file.variant_id IN (:...variantIds)', { variantIds })
        .andWhere('file.deleted_at IS NULL')
        .orderBy('file.sort')
        .addOrderBy('file.id'),
      'file',
      scope,
    ).getMany();
  }

  findByIdentifier(identifier: string): Promise<CatalogFile | null> {
    return this.files.findOneBy({ identifier });
  }

  /** The bytes of a file not yet moved to storage. */
  async findContent(fileId: number): Promise<Buffer | null> {
    const row = await this.files.manager
      .getRepository(FileContent)
      .findOneBy({ fileId });
    return row?.content ?? null;
  }

  /** A variant's files as offered at `at`: published, created before it and not deleted by then. */
  findDeliverable(variantId: number, at: Date): Promise<CatalogFile[]> {
    return this.files
      .createQueryBuilder('file')
      .where('file.variant_id = :variantId', { variantId })
      .andWhere(`file.status = 'published'`)
      .andWhere('(file.deleted_at IS NULL OR file.deleted_at > :at)', { at })
      .orderBy('file.sort')
      .addOrderBy('file.id')
      .getMany();
  }

  lockInScope(
    manager: EntityManager,
    scope: CatalogScope,
    id: number,
  ): Promise<CatalogFile | null> {
    return scoped(
      manager
        .getRepository(CatalogFile)
        .createQueryBuilder('file')
        .setLock('pessimistic_write')
        .where('file.id = :id', { id })
        .andWhere('file.deleted_at IS NULL'),
      'file',
      scope,
    ).getOne();
  }

  async update(
    manager: EntityManager,
    file: CatalogFile,
    fields: Partial<CatalogFile>,
  ): Promise<CatalogFile> {
    if (Object.keys(fields).length === 0) return file;
    await manager.getRepository(CatalogFile).update(file.id, fields);
    return manager.getRepository(CatalogFile).findOneByOrFail({ id: file.id });
  }

  async markDeleted(manager: EntityManager, id: number): Promise<void> {
    await manager.query(
      `UPDATE files SET deleted_at = now(), updated_at = now() WHERE id = $1`,
      [id],
    );
  }

  /** Whether an order that still holds the file (paid, not refunded) was placed while it was offered. */
  async isSoldBefore(
    manager: EntityManager,
    file: CatalogFile,
  ): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      `SELECT 1 FROM order_items item
         JOIN orders ON orders.id = item.order_id
        WHERE item.variant_id = $1 AND orders.status = 'paid'
          AND item.created_at >= $2
        LIMIT 1`,
      [file.variantId, file.createdAt],
    );
    return rows.length > 0;
  }

  /** A deleted file that no order keeps: its row stays (ids are not reused), its bytes go. */
  async detachBytes(manager: EntityManager, id: number): Promise<void> {
    await manager.query(`UPDATE files SET storage_key = NULL WHERE id = $1`, [
      id,
    ]);
    await manager.query(`DELETE FROM file_contents WHERE file_id = $1`, [id]);
  }

  /** Files whose bytes are still in `file_contents`, a batch at a time. */
  async findUnmoved(
    limit: number,
  ): Promise<{ id: number; storeId: number; identifier: string }[]> {
    const rows: { id: number; store_id: number; identifier: string }[] =
      await this.files.manager.query(
        `SELECT files.id, files.store_id, files.identifier
           FROM file_contents JOIN files ON files.id = file_contents.file_id
          WHERE files.storage_key IS NULL
          ORDER BY files.id LIMIT $1`,
        [limit],
      );
    return rows.map((row) => ({
      id: row.id,
      storeId: row.store_id,
      identifier: row.identifier,
    }));
  }

  /** After its bytes are stored: the key and checksum, and the database copy gone, at once. */
  async markMoved(id: number, key: string, sha256: string): Promise<void> {
    await this.files.manager.transaction(async (manager) => {
      await manager.query(
        `UPDATE files SET storage_key = $2, sha256 = COALESCE(sha256, $3)
          WHERE id = $1 AND storage_key IS NULL`,
        [id, key, sha256],
      );
      await manager.query(`DELETE FROM file_contents WHERE file_id = $1`, [id]);
    });
  }

  nextSort(manager: EntityManager, variantId: number): Promise<number> {
    return manager
      .query(
        `SELECT COALESCE(MAX(sort) + 1, 0) AS next FROM files WHERE variant_id = $1`,
        [variantId],
      )
      .then((rows: { next: number }[]) => Number(rows[0].next));
  }

  insert(
    manager: EntityManager,
    fields: Partial<CatalogFile>,
  ): Promise<CatalogFile> {
    const repository = manager.getRepository(CatalogFile);
    return repository.save(repository.create(fields));
  }
}
