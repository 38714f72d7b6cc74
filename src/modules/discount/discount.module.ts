import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CatalogModule } from '../catalog/catalog.module';
import { DiscountRedemptionController } from './discount-redemption.controller';
import { DiscountRedemption } from './discount-redemption.entity';
import { DiscountRedemptionSerializer } from './discount-redemption.serializer';
import { DiscountController } from './discount.controller';
import { Discount } from './discount.entity';
import { DiscountRepository } from './discount.repository';
import { DiscountSerializer } from './discount.serializer';
import { DiscountService } from './discount.service';
import { DiscountRedemptionReader, DiscountReader } from './discount.reader';
import { registerResources } from '../../http/json-api/resource';

/** Discounts and their redemptions; the checkout applies and redeems them. */
@Module({
  imports: [
    TypeOrmModule.forFeature([Discount, DiscountRedemption]),
    CatalogModule,
  ],
  controllers: [DiscountController, DiscountRedemptionController],
  providers: [
    DiscountRepository,
    DiscountService,
    DiscountSerializer,
    DiscountRedemptionSerializer,
    DiscountReader,
    DiscountRedemptionReader,
    registerResources(
      {
        type: 'discounts',
        serializer: DiscountSerializer,
        reader: DiscountReader,
      },
      {
        type: 'discount-redemptions',
        serializer: DiscountRedemptionSerializer,
        reader: DiscountRedemptionReader,
      },
    ),
  ],
  exports: [DiscountService],
})
export class DiscountModule {}
