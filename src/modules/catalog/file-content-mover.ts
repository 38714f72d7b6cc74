import { createHash } from 'node:crypto';
import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { FILE_STORAGE } from '../../storage/file-storage';
import type { FileStorage } from '../../storage/file-storage';
import { FileRepository } from './file.repository';
import { fileStorageKey } from './file.service';

const BATCH = 20;

/**
 * Moves the bytes of files from before storage (`file_contents`, see the
 * FileStorage1795633475731 migration) into the file storage, after start-up
 * in every process, in the background. Each file is stored first, then
 * given its key and removed from the database in one transaction; a crash
 * in between stores it again under the same key next time. Processes that
 * run it at once store the same bytes under the same key and the second
 * update changes nothing, so no lock is needed.
 */
@Injectable()
export class FileContentMover
  implements OnApplicationBootstrap, OnApplicationShutdown
{
  private readonly logger = new Logger(FileContentMover.name);
  private running: Promise<number> | null = null;
  private stopping = false;

  constructor(
    private readonly files: FileRepository,
    @Inject(FILE_STORAGE) private readonly storage: FileStorage,
  ) {}

  onApplicationBootstrap() {
    this.running = this.moveAll();
    this.running.then(
      (moved) => {
        if (moved > 0)
          this.logger.log(`Moved ${moved} files from the database to storage`);
      },
      (error: unknown) =>
        this.logger.error(
          { err: error },
          'Moving files from the database to storage stopped; it resumes at the next start',
        ),
    );
  }

  async onApplicationShutdown() {
    this.stopping = true;
    await this.running?.catch(() => undefined);
  }

  /** Moves every file still in the database; returns how many. */
  async moveAll(): Promise<number> {
    let moved = 0;
    for (;;) {
      const batch = await this.files.findUnmoved(BATCH);
      if (batch.length === 0 || this.stopping) return moved;
      for (const file of batch) {
        const content = await this.files.findContent(file.id);
        if (!content) continue;
        const key = fileStorageKey(file);
        await this.storage.put(key, content);
        const sha256 = createHash('sha256').update(content).digest('hex');
        await this.files.markMoved(file.id, key, sha256);
        moved++;
      }
    }
  }
}
