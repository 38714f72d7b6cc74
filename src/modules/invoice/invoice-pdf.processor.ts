import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Job } from 'bullmq';
import { INVOICE_PDF_QUEUE, InvoicePdfJob } from './invoice.queue';
import { InvoiceService } from './invoice.service';

@Processor(INVOICE_PDF_QUEUE)
export class InvoicePdfProcessor extends WorkerHost {
  constructor(private readonly invoices: InvoiceService) {
    super();
  }

  async process(job: Job<InvoicePdfJob>): Promise<void> {
    await this.invoices.render(job.data);
  }
}
