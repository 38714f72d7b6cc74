import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { SignedUrls } from '../../common/signed-urls.service';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { PORTAL_LINK_LIFETIME_MS } from '../customer/customer.service';
import {
  CustomerActivity,
  CustomerActivitySource,
  CustomerRef,
  PortalLicenseKey,
} from '../customer/customer-activity';
import { Order } from '../order/order.entity';
import {
  ReceiptExtras,
  ReceiptExtraSource,
  ReceiptLicenseKey,
} from '../order/receipt-extras';
import { LicenseKeyRepository } from './license-key.repository';
import { licenseKeyStatus } from './license-key.state';

/** The customer's license keys on their portal page, an order's on its receipt. */
@Injectable()
export class LicenseKeyCustomerActivity
  implements CustomerActivitySource, ReceiptExtraSource, OnModuleInit
{
  constructor(
    private readonly activity: CustomerActivity,
    private readonly repository: LicenseKeyRepository,
    private readonly receipts: ReceiptExtras,
    private readonly signedUrls: SignedUrls,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit() {
    this.activity.register(this);
    this.receipts.register(this);
  }

  async licenseKeys(order: Order): Promise<ReceiptLicenseKey[]> {
    const keys = await this.repository.findKeysOfOrder(order);
    return keys.map((key) => ({
      product:
        key.variantName && key.variantName !== 'Default'
          ? `${key.productName} – ${key.variantName}`
          : key.productName,
      key: key.key,
      activationLimit: key.activationLimit,
      expiresAt: key.expiresAt,
    }));
  }

  async portal(
    customer: CustomerRef,
    now: Date,
  ): Promise<{ licenseKeys: PortalLicenseKey[] }> {
    const keys = await this.repository.findKeysOfCustomer(customer);
    const instances = await this.repository.instancesOfKeys(
      customer,
      keys.map((k) => k.id),
    );
    const expiresAt = new Date(now.getTime() + PORTAL_LINK_LIFETIME_MS);
    return {
      licenseKeys: keys.map((key) => ({
        key: key.key,
        productName: key.productName,
        status: licenseKeyStatus(key, now),
        activationUsage: key.instancesCount,
        activationLimit: key.activationLimit,
        expiresAt: key.expiresAt,
        instances: instances
          .filter((i) => i.licenseKeyId === key.id)
          .map((i) => ({
            name: i.name,
            activatedAt: i.createdAt,
            deactivateUrl: this.signedUrls.sign(
              this.config.http.publicBaseUrl,
              `/portal/license-keys/${key.id}/instances/${i.identifier}/deactivate`,
              { expiresAt },
            ),
          })),
      })),
    };
  }
}
