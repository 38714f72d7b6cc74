import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CurrencyModule } from '../currency/currency.module';
import { StoreController } from './store.controller';
import { Store } from './store.entity';
import { StoreRepository } from './store.repository';
import { StoreSerializer } from './store.serializer';
import { StoreService } from './store.service';

@Module({
  imports: [TypeOrmModule.forFeature([Store]), CurrencyModule],
  controllers: [StoreController],
  providers: [StoreRepository, StoreService, StoreSerializer],
  exports: [StoreService],
})
export class StoreModule {}
