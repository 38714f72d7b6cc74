import { Injectable, OnModuleInit } from '@nestjs/common';
import {
  CustomerActivity,
  CustomerActivitySource,
  CustomerRef,
  PortalLicenseKey,
} from '../customer/customer-activity';
import { LicenseKeyRepository } from './license-key.repository';
import { licenseKeyStatus } from './license-key.state';

/** The customer's license keys on their portal page. */
@Injectable()
export class LicenseKeyCustomerActivity
  implements CustomerActivitySource, OnModuleInit
{
  constructor(
    private readonly activity: CustomerActivity,
    private readonly repository: LicenseKeyRepository,
  ) {}

  onModuleInit() {
    this.activity.register(this);
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
