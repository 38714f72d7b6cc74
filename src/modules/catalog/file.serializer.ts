import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { filterParsers } from '../../common/list-query';
import { SignedUrls } from '../../common/signed-urls.service';
import { formatTimestamp } from '../../common/timestamps';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { ResourceType } from '../../http/json-api/resource';
import { formatFileSize } from './catalog-format';
import { CatalogFile } from './file.entity';

/** Download links live this long (reference: `download_url` expires after 1 hour). */
const DOWNLOAD_TTL_SECONDS = 3600;

/** JSON:API `files`: 13 attributes with camelCase timestamps, as the reference has them. */
@Injectable()
export class FileSerializer implements ResourceType<CatalogFile> {
  readonly type = 'files';
  readonly relationships = {
    variant: {
      kind: 'one',
      type: 'variants',
      id: (file: CatalogFile) => file.variantId,
    },
  } as const;
  readonly list = {
    filters: { variant_id: filterParsers.id },
    sorts: ['sort', 'name', 'created_at', 'updated_at'],
    defaultSort: 'sort',
  };

  constructor(
    private readonly signedUrls: SignedUrls,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  id(file: CatalogFile) {
    return String(file.id);
  }

  attributes(file: CatalogFile) {
    return {
      variant_id: file.variantId,
      identifier: file.identifier,
      name: file.name,
      extension: file.extension,
      // A fresh link on every read: it expires an hour after the request.
      download_url: this.signedUrls.sign(
        this.config.http.publicBaseUrl,
        `/downloads/${file.identifier}`,
        {
          expiresAt: new Date(
            this.clock.now().getTime() + DOWNLOAD_TTL_SECONDS * 1000,
          ),
        },
      ),
      size: file.size,
      size_formatted: formatFileSize(file.size),
      version: file.version,
      sort: file.sort,
      status: file.status,
      createdAt: formatTimestamp(file.createdAt),
      updatedAt: formatTimestamp(file.updatedAt),
      test_mode: file.testMode,
      sha256: file.sha256,
    };
  }
}
