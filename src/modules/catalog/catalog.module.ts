import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CatalogFile, FileContent } from './file.entity';
import { Price } from './price.entity';
import { Product } from './product.entity';
import { Variant } from './variant.entity';

@Module({
  imports: [
    TypeOrmModule.forFeature([
      Product,
      Variant,
      Price,
      CatalogFile,
      FileContent,
    ]),
  ],
})
export class CatalogModule {}
