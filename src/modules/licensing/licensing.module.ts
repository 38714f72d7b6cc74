import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LicenseApiController } from './license-api.controller';
import { LicenseApiService } from './license-api.service';
import { LicenseKeyInstanceController } from './license-key-instance.controller';
import { LicenseKeyInstance } from './license-key-instance.entity';
import { LicenseKeyInstanceSerializer } from './license-key-instance.serializer';
import { LicenseKeyController } from './license-key.controller';
import { LicenseKey } from './license-key.entity';
import { LicenseKeyRepository } from './license-key.repository';
import { LicenseKeySerializer } from './license-key.serializer';
import { LicenseKeyService } from './license-key.service';

/** License keys, their instances, and the public License API. */
@Module({
  imports: [TypeOrmModule.forFeature([LicenseKey, LicenseKeyInstance])],
  controllers: [
    LicenseKeyController,
    LicenseKeyInstanceController,
    LicenseApiController,
  ],
  providers: [
    LicenseKeyRepository,
    LicenseKeyService,
    LicenseApiService,
    LicenseKeySerializer,
    LicenseKeyInstanceSerializer,
  ],
  exports: [LicenseKeyService],
})
export class LicensingModule {}
