import { Module } from '@nestjs/common';
import { AccountModule } from '../modules/account/account.module';
import { ApiKeyUsageProcessor } from '../modules/account/api-key-usage.processor';
import { InvoicePdfProcessor } from '../modules/invoice/invoice-pdf.processor';
import { InvoiceModule } from '../modules/invoice/invoice.module';

/** Every BullMQ processor. Loaded by the worker (and by the embedded single process), never by the API. */
@Module({
  imports: [AccountModule, InvoiceModule],
  providers: [ApiKeyUsageProcessor, InvoicePdfProcessor],
})
export class ProcessorsModule {}
