import { Module } from '@nestjs/common';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { FILE_STORAGE } from './file-storage';
import { LocalFileStorage } from './local-file-storage';

/** Provides `FILE_STORAGE`: local disk under STORAGE_DIR. */
@Module({
  providers: [
    {
      provide: FILE_STORAGE,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) =>
        new LocalFileStorage(config.storage.dir),
    },
  ],
  exports: [FILE_STORAGE],
})
export class StorageModule {}
