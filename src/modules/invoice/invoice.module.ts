import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { StorageModule } from '../../storage/storage.module';
import { OrderModule } from '../order/order.module';
import { StoreModule } from '../store/store.module';
import { InvoiceBillTo } from './invoice-bill-to.entity';
import { InvoiceBillToRepository } from './invoice-bill-to.repository';
import { InvoiceBillToService } from './invoice-bill-to.service';
import { InvoiceSources } from './invoice-source';
import { InvoiceController } from './invoice.controller';
import { INVOICE_PDF_QUEUE, InvoicePdfJobs } from './invoice.queue';
import { InvoiceService } from './invoice.service';
import { OrderInvoiceSource } from './order-invoice.source';

/**
 * Invoice PDFs: generate-invoice routes, signed download links, the render
 * queue. Other modules plug in a source by injecting `InvoiceSources`
 * and use `InvoiceService.link` for `urls.invoice_url`.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([InvoiceBillTo]),
    StorageModule,
    StoreModule,
    OrderModule,
    BullModule.registerQueue({ name: INVOICE_PDF_QUEUE }),
  ],
  controllers: [InvoiceController],
  providers: [
    InvoiceSources,
    InvoicePdfJobs,
    InvoiceBillToRepository,
    InvoiceBillToService,
    InvoiceService,
    OrderInvoiceSource,
  ],
  exports: [InvoiceSources, InvoiceService],
})
export class InvoiceModule {}
