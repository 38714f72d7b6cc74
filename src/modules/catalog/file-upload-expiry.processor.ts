import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Queue } from 'bullmq';
import {
  FILE_UPLOAD_EXPIRY_EVERY_MS,
  FILE_UPLOAD_EXPIRY_QUEUE,
  FILE_UPLOAD_EXPIRY_SCHEDULER,
} from './file-upload-expiry.queue';
import { FileUploadService } from './file-upload.service';

/**
 * Deletes resumable uploads (tus) older than their expiration, hourly:
 * the received parts of an abandoned upload, and the state of a completed
 * one (its file stays). The tus server already answers 410 for them.
 */
@Processor(FILE_UPLOAD_EXPIRY_QUEUE)
export class FileUploadExpiryProcessor
  extends WorkerHost
  implements OnApplicationBootstrap
{
  private readonly logger = new Logger(FileUploadExpiryProcessor.name);

  constructor(
    private readonly uploads: FileUploadService,
    @InjectQueue(FILE_UPLOAD_EXPIRY_QUEUE) private readonly queue: Queue,
  ) {
    super();
  }

  async onApplicationBootstrap() {
    await this.queue.upsertJobScheduler(
      FILE_UPLOAD_EXPIRY_SCHEDULER,
      { every: FILE_UPLOAD_EXPIRY_EVERY_MS },
      {
        name: 'delete-expired',
        opts: { removeOnComplete: 100, removeOnFail: 100 },
      },
    );
  }

  async process(): Promise<{ deleted: number }> {
    const deleted = await this.uploads.deleteExpired();
    if (deleted > 0)
      this.logger.log(`Deleted ${deleted} expired resumable uploads`);
    return { deleted };
  }
}
