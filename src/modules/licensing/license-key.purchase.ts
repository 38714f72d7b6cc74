import { Injectable, OnModuleInit } from '@nestjs/common';
import {
  PurchaseContext,
  PurchaseExtension,
  PurchaseExtensions,
} from '../checkout/purchase-extension';
import { LicenseKeyService } from './license-key.service';

/** Issues the license keys of a paid purchase, inside its transaction. */
@Injectable()
export class LicenseKeyPurchase implements PurchaseExtension, OnModuleInit {
  readonly name = 'licensing';

  constructor(
    private readonly extensions: PurchaseExtensions,
    private readonly keys: LicenseKeyService,
  ) {}

  onModuleInit() {
    this.extensions.register(this);
  }

  async onPurchase(context: PurchaseContext): Promise<void> {
    for (const item of context.items) {
      const { variant, product, orderItem } = item;
      if (!variant.hasLicenseKeys) continue;
      await this.keys.issue(context.manager, {
        storeId: context.store.id,
        testMode: context.testMode,
        customerId: context.customer.id,
        orderId: context.order.id,
        orderItemId: orderItem.id,
        productId: product.id,
        productName: orderItem.productName,
        variantId: variant.id,
        variantName: orderItem.variantName,
        userName: context.order.userName,
        userEmail: context.order.userEmail,
        quantity: item.quantity,
        license: {
          activationLimit: variant.licenseActivationLimit,
          isLimitUnlimited: variant.isLicenseLimitUnlimited,
          lengthValue: variant.licenseLengthValue,
          lengthUnit: variant.licenseLengthUnit,
          isLengthUnlimited: variant.isLicenseLengthUnlimited,
        },
        subscription: item.price.category === 'subscription',
        now: context.now,
        customData: context.customData,
      });
    }
  }
}
