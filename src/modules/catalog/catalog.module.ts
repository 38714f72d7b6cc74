import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { registerResources } from '../../http/json-api/resource';
import { StorageModule } from '../../storage/storage.module';
import { StoreModule } from '../store/store.module';
import { CatalogService } from './catalog.service';
import { FileReader } from './file.reader';
import { FileContentMover } from './file-content-mover';
import { FileController } from './file.controller';
import { FILE_UPLOAD_EXPIRY_QUEUE } from './file-upload-expiry.queue';
import { FileUploadController } from './file-upload.controller';
import { FileUploadService } from './file-upload.service';
import { CatalogFile, FileContent } from './file.entity';
import { FileRepository } from './file.repository';
import { FileSerializer } from './file.serializer';
import { FileService } from './file.service';
import { PriceReader } from './price.reader';
import { PriceController } from './price.controller';
import { Price } from './price.entity';
import { PriceRepository } from './price.repository';
import { PriceSerializer } from './price.serializer';
import { PriceService } from './price.service';
import { ProductController } from './product.controller';
import { Product } from './product.entity';
import { ProductRepository } from './product.repository';
import { ProductSerializer } from './product.serializer';
import { ProductService } from './product.service';
import { VariantController } from './variant.controller';
import { Variant } from './variant.entity';
import { VariantRepository } from './variant.repository';
import { VariantSerializer } from './variant.serializer';
import { VariantService } from './variant.service';

/** Products, variants, prices and files. */
@Module({
  imports: [
    TypeOrmModule.forFeature([
      Product,
      Variant,
      Price,
      CatalogFile,
      FileContent,
    ]),
    StoreModule,
    StorageModule,
    BullModule.registerQueue({ name: FILE_UPLOAD_EXPIRY_QUEUE }),
  ],
  controllers: [
    ProductController,
    VariantController,
    PriceController,
    FileUploadController,
    FileController,
  ],
  providers: [
    ProductRepository,
    VariantRepository,
    PriceRepository,
    FileRepository,
    ProductService,
    VariantService,
    PriceService,
    FileService,
    FileUploadService,
    CatalogService,
    FileContentMover,
    ProductSerializer,
    VariantSerializer,
    PriceSerializer,
    FileSerializer,
    PriceReader,
    FileReader,
    registerResources(
      {
        type: 'products',
        serializer: ProductSerializer,
        reader: ProductService,
      },
      {
        type: 'variants',
        serializer: VariantSerializer,
        reader: VariantService,
      },
      { type: 'prices', serializer: PriceSerializer, reader: PriceReader },
      { type: 'files', serializer: FileSerializer, reader: FileReader },
    ),
  ],
  exports: [
    CatalogService,
    ProductService,
    VariantService,
    PriceService,
    FileService,
    FileUploadService,
    FileReader,
    BullModule,
  ],
})
export class CatalogModule {}
