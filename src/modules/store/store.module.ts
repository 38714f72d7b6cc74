import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CurrencyModule } from '../currency/currency.module';
import { PaymentModule } from '../payment/payment.module';
import { StoreController } from './store.controller';
import { Store } from './store.entity';
import { StoreRepository } from './store.repository';
import { StoreSalesSources } from './store-sales';
import { InvoiceNumbers } from './invoice-numbers';
import { StoreSerializer } from './store.serializer';
import { StoreService } from './store.service';
import { registerResources } from '../../http/json-api/resource';

/** Stores; the order and billing modules register sales sources here. */
@Module({
  imports: [TypeOrmModule.forFeature([Store]), CurrencyModule, PaymentModule],
  controllers: [StoreController],
  providers: [
    StoreRepository,
    StoreService,
    StoreSerializer,
    StoreSalesSources,
    InvoiceNumbers,
    registerResources({
      type: 'stores',
      serializer: StoreSerializer,
      reader: StoreService,
    }),
  ],
  exports: [StoreService, StoreSalesSources, InvoiceNumbers],
})
export class StoreModule {}
