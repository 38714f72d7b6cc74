import { Injectable } from '@nestjs/common';
import { FilterValue, ListQuery, Page } from '../../common/list-query';
import { Reader } from '../../common/reader';
import { CatalogScope } from './catalog-scope';
import { CatalogFile } from './file.entity';
import { FileRepository } from './file.repository';

/** How `files` are found (registered in CatalogModule). */
@Injectable()
export class FileReader implements Reader<CatalogFile> {
  constructor(private readonly files: FileRepository) {}

  findMany(scope: CatalogScope, ids: number[]): Promise<CatalogFile[]> {
    return this.files.findInScope(scope, ids);
  }

  findPage(scope: CatalogScope, query: ListQuery): Promise<Page<CatalogFile>> {
    return this.files.findPage(scope, query);
  }

  findByFilter(
    scope: CatalogScope,
    filter: string,
    values: FilterValue[],
  ): Promise<CatalogFile[]> {
    if (filter !== 'variant_id')
      throw new Error(`files cannot be listed by ${filter}`);
    return this.files.findByVariants(scope, values);
  }
}
