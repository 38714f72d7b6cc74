import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Price } from '../catalog/price.entity';
import { Product } from '../catalog/product.entity';
import { Variant } from '../catalog/variant.entity';
import { Customer } from '../customer/customer.entity';
import { AppliedDiscount } from '../discount/discount.service';
import { OrderItem } from '../order/order-item.entity';
import { OrderView } from '../order/order.repository';
import { PaymentMethod } from '../payment/payment-gateway';
import { Store } from '../store/store.entity';
import { Checkout } from './checkout.entity';

export interface PurchasedItem {
  orderItem: OrderItem;
  product: Product;
  variant: Variant;
  price: Price;
  quantity: number;
}

/** Everything a paid purchase produced so far, inside the transaction that settles it. */
export interface PurchaseContext {
  /** The purchase's transaction: write with it, and record events with `Outbox.record(manager, …)`. */
  manager: EntityManager;
  /** The clock's instant of the purchase (use it for created_at, periods, expiry). */
  now: Date;
  testMode: boolean;
  store: Store;
  customer: Customer;
  /** The paid order (status `paid`), already numbered and saved. Do not change it. */
  order: OrderView;
  items: PurchasedItem[];
  discount: AppliedDiscount | null;
  /** The checkout it was bought through; null for a variant's buy_now_url. */
  checkout: Checkout | null;
  /** `checkout_data.custom`, for the events' `meta.custom_data`. */
  customData: Record<string, unknown> | null;
  /** The charge, with the reusable payment method for later (renewal) charges; null for a free order. */
  payment: { paymentId: string; method: PaymentMethod } | null;
}

/**
 * A module's part in a paid purchase (billing: subscription, item, initial
 * invoice; licensing: license keys). Runs inside the transaction that
 * settles the purchase once its charge went through (or the one that writes
 * an order that charges nothing), after the order, its items, the discount
 * redemption and `order_created`; throwing rolls that transaction back and
 * leaves the order pending for the payment sweeper to settle again (so
 * throw only for real failures).
 */
export interface PurchaseExtension {
  readonly name: string;
  onPurchase(context: PurchaseContext): Promise<void>;
}

/**
 * The registry of purchase extensions. Modules call `register` from their
 * `onModuleInit`; extensions run in registration order.
 */
@Injectable()
export class PurchaseExtensions {
  private readonly extensions: PurchaseExtension[] = [];

  register(extension: PurchaseExtension) {
    if (this.extensions.some((e) => e.name === extension.name)) {
      throw new Error(
        `Purchase extension "${extension.name}" is registered twice`,
      );
    }
    this.extensions.push(extension);
  }

  async run(context: PurchaseContext): Promise<void> {
    for (const extension of this.extensions) {
      await extension.onPurchase(context);
    }
  }
}
