import { Injectable, OnModuleInit } from '@nestjs/common';
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
    return {
      licenseKeys: keys.map((key) => ({
        key: key.key,
        productName: key.productName,
        status: licenseKeyStatus(key, now),
        activationUsage: key.instancesCount,
        activationLimit: key.activationLimit,
        expiresAt: key.expiresAt,
      })),
    };
  }
}
