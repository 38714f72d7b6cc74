import { Module } from '@nestjs/common';
import { CatalogModule } from '../catalog/catalog.module';
import { CustomerModule } from '../customer/customer.module';
import { DeliveryRepository } from './delivery.repository';
import { DeliveryService } from './delivery.service';
import { DownloadController } from './download.controller';

/**
 * Digital delivery: the files an order's items deliver, signed download
 * links for receipts, the portal and e-mails, and the download route with
 * its counters, caps and refund rule.
 */
@Module({
  imports: [CatalogModule, CustomerModule],
  controllers: [DownloadController],
  providers: [DeliveryRepository, DeliveryService],
  exports: [DeliveryService],
})
export class DeliveryModule {}
