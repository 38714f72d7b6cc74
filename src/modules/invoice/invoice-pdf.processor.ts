import { Processor, WorkerHost } from '@nestjs/bullmq';
import {
  Inject,
  Logger,
  OnApplicationBootstrap,
  OnModuleDestroy,
} from '@nestjs/common';
import { Job } from 'bullmq';
import { RepeatingTask, repeatEvery } from '../../common/repeat-every';
import { FILE_STORAGE } from '../../storage/file-storage';
import type { FileStorage } from '../../storage/file-storage';
import { INVOICE_PDF_QUEUE, InvoicePdfJob } from './invoice.queue';
import { InvoiceService } from './invoice.service';

/** A PDF is written in milliseconds: a temporary file this old lost its writer. */
export const STALE_TEMPORARY_FILE_MS = 60 * 60 * 1000;

/**
 * Renders invoice PDFs. Also sweeps the temporary files of writes cut short
 * by a killed worker: at start, and hourly for those of other replicas.
 */
@Processor(INVOICE_PDF_QUEUE)
export class InvoicePdfProcessor
  extends WorkerHost
  implements OnApplicationBootstrap, OnModuleDestroy
{
  private readonly logger = new Logger(InvoicePdfProcessor.name);
  private sweeps: RepeatingTask | undefined;

  constructor(
    private readonly invoices: InvoiceService,
    @Inject(FILE_STORAGE) private readonly storage: FileStorage,
  ) {
    super();
  }

  onApplicationBootstrap() {
    // The first sweep is not awaited: a large storage folder must not hold
    // up the worker's start.
    this.sweeps = repeatEvery(
      STALE_TEMPORARY_FILE_MS,
      async () => {
        const removed = await this.storage.removeStaleTemporaryFiles(
          STALE_TEMPORARY_FILE_MS,
        );
        if (removed > 0)
          this.logger.log({ removed }, 'Removed stale temporary files');
      },
      (error) =>
        this.logger.warn({ err: error }, 'Could not sweep temporary files'),
    );
  }

  onModuleDestroy() {
    this.sweeps?.stop();
  }

  async process(job: Job<InvoicePdfJob>): Promise<void> {
    await this.invoices.render(job.data);
  }
}
