import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { JobsOptions, Queue } from 'bullmq';
import { InvoiceFields } from './invoice-view';

export const INVOICE_PDF_QUEUE = 'invoice-pdf';

export interface InvoicePdfJob {
  type: string;
  id: number;
  /** Whose view the link carries; null for an unscoped link (`InvoiceSource.loadLinked`). */
  scope: { userId: number; testMode: boolean } | null;
  /** Token of the stored bill-to details (`InvoiceBillToService`); null for none. */
  billTo: string | null;
  /**
   * The details themselves, only in jobs queued before they were stored
   * (kept so that such jobs still render after an upgrade); never set now,
   * so a buyer's name and address stay out of Redis and the queue tables.
   */
  fields?: InvoiceFields;
}

const JOB_OPTIONS: JobsOptions = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 1000 },
  // Removed when done so that a job id can run again: a link whose file has
  // gone missing re-enqueues the same id and gets a fresh render.
  removeOnComplete: true,
  removeOnFail: true,
};

/** Enqueues PDF renders; the job id is the PDF's content key, so repeats coalesce. */
@Injectable()
export class InvoicePdfJobs {
  constructor(
    @InjectQueue(INVOICE_PDF_QUEUE)
    private readonly queue: Queue<InvoicePdfJob>,
  ) {}

  async enqueue(job: InvoicePdfJob, contentHash: string): Promise<void> {
    await this.queue.add('render', job, {
      ...JOB_OPTIONS,
      jobId: invoiceJobId(job, contentHash),
    });
  }
}

/** Deterministic and free of ':' (BullMQ reserves it in ids). */
export function invoiceJobId(
  job: Pick<InvoicePdfJob, 'type' | 'id'>,
  contentHash: string,
): string {
  return `invoice-${job.type}-${job.id}-${contentHash}`;
}
