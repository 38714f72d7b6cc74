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
        .where('file.id IN (:...ids)', { ids }),
      'file',
      scope,
    ).getMany();
  }

  findPage(scope: CatalogScope, query: ListQuery): Promise<Page<CatalogFile>> {
    return loadPage(
      this.files.createQueryBuilder('file'),
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
        .orderBy('file.sort')
        .addOrderBy('file.id'),
      'file',
      scope,
    ).getMany();
  }

  async findContent(
    identifier: string,
  ): Promise<{ file: CatalogFile; content: Buffer } | null> {
    const file = await this.files.findOneBy({ identifier });
    if (!file) return null;
    const row = await this.files.manager
      .getRepository(FileContent)
      .findOneBy({ fileId: file.id });
    return row ? { file, content: row.content } : null;
  }

  nextSort(manager: EntityManager, variantId: number): Promise<number> {
    return manager
      .query(
        `SELECT COALESCE(MAX(sort) + 1, 0) AS next FROM files WHERE variant_id = $1`,
        [variantId],
      )
      .then((rows: { next: number }[]) => Number(rows[0].next));
  }

  async insert(
    manager: EntityManager,
    fields: Partial<CatalogFile>,
    content: Buffer,
  ): Promise<CatalogFile> {
    const repository = manager.getRepository(CatalogFile);
    const file = await repository.save(repository.create(fields));
    await manager
      .getRepository(FileContent)
      .insert({ fileId: file.id, content });
    return file;
  }
}
