import { Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { FILE_STORAGE } from './file-storage';
import type { FileStorage } from './file-storage';
import { LocalFileStorage } from './local-file-storage';
import { S3FileStorage } from './s3-file-storage';

/** The configured backend: the S3-compatible bucket of STORAGE_URL, else local disk under STORAGE_DIR. */
export function createFileStorage(config: AppConfig): FileStorage {
  return config.storage.s3
    ? new S3FileStorage(config.storage.s3)
    : new LocalFileStorage(config.storage.dir);
}

/** Provides `FILE_STORAGE`. */
@Module({
  providers: [
    {
      provide: FILE_STORAGE,
      inject: [APP_CONFIG],
      useFactory: createFileStorage,
    },
  ],
  exports: [FILE_STORAGE],
})
export class StorageModule implements OnApplicationShutdown {
  constructor(@Inject(FILE_STORAGE) private readonly storage: FileStorage) {}

  onApplicationShutdown() {
    if (this.storage instanceof S3FileStorage) this.storage.close();
  }
}
