import { LicenseKeyPortalController } from './license-key-portal.controller';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CheckoutModule } from '../checkout/checkout.module';
import { CustomerModule } from '../customer/customer.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { LicenseApiController } from './license-api.controller';
import { LicenseApiService } from './license-api.service';
import { LicenseKeyInstanceController } from './license-key-instance.controller';
import { LicenseKeyInstance } from './license-key-instance.entity';
import { LicenseKeyInstanceSerializer } from './license-key-instance.serializer';
import { LicenseKeyController } from './license-key.controller';
import { LicenseKeyCustomerActivity } from './license-key.customer-activity';
import { LicenseKeyPurchase } from './license-key.purchase';
import { LicenseKey } from './license-key.entity';
import { LicenseKeyRepository } from './license-key.repository';
import { LicenseKeySerializer } from './license-key.serializer';
import { LicenseKeyService } from './license-key.service';
import { LicenseKeyInstanceReader } from './license-key-instance.reader';
import { registerResources } from '../../http/json-api/resource';

/** License keys, their instances, and the public License API. */
@Module({
  imports: [
    TypeOrmModule.forFeature([LicenseKey, LicenseKeyInstance]),
    WebhooksModule,
    CheckoutModule,
    CustomerModule,
  ],
  controllers: [
    LicenseKeyController,
    LicenseKeyInstanceController,
    LicenseApiController,
    LicenseKeyPortalController,
  ],
  providers: [
    LicenseKeyRepository,
    LicenseKeyService,
    LicenseKeyPurchase,
    LicenseKeyCustomerActivity,
    LicenseApiService,
    LicenseKeySerializer,
    LicenseKeyInstanceSerializer,
    LicenseKeyInstanceReader,
    registerResources(
      {
        type: 'license-keys',
        serializer: LicenseKeySerializer,
        reader: LicenseKeyService,
      },
      {
        type: 'license-key-instances',
        serializer: LicenseKeyInstanceSerializer,
        reader: LicenseKeyInstanceReader,
      },
    ),
  ],
  exports: [LicenseKeyService],
})
export class LicensingModule {}
