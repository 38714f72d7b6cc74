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
 * The extensions of a purchase, in the order they run: license keys, then
 * the subscription (its item, initial invoice and events), the Stripe Tax
 * transaction owed (tax), then the order receipt in the mail outbox (which lists the keys). Each name is
 * registered by exactly one module; the order is this list, never the order
 * Nest happens to initialise the modules in.
 */
export const PURCHASE_EXTENSION_ORDER = [
  'licensing',
  'billing',
  'tax',
  'mail',
] as const;

export type PurchaseExtensionName = (typeof PURCHASE_EXTENSION_ORDER)[number];

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
  readonly name: PurchaseExtensionName;
  onPurchase(context: PurchaseContext): Promise<void>;
}

/**
 * The registry of purchase extensions. Modules call `register` from their
 * `onModuleInit`; extensions run in `PURCHASE_EXTENSION_ORDER`, whatever
 * order they were registered in.
 */
@Injectable()
export class PurchaseExtensions {
  private readonly extensions: PurchaseExtension[] = [];

  register(extension: PurchaseExtension) {
    const position = PURCHASE_EXTENSION_ORDER.indexOf(extension.name);
    if (position < 0) {
      throw new Error(
        `Purchase extension "${String(extension.name)}" is not in PURCHASE_EXTENSION_ORDER`,
      );
    }
    if (this.extensions.some((e) => e.name === extension.name)) {
      throw new Error(
        `Purchase extension "${extension.name}" is registered twice`,
      );
    }
    this.extensions.push(extension);
    this.extensions.sort(
      (a, b) =>
        PURCHASE_EXTENSION_ORDER.indexOf(a.name) -
        PURCHASE_EXTENSION_ORDER.indexOf(b.name),
    );
  }

  async run(context: PurchaseContext): Promise<void> {
    for (const extension of this.extensions) {
      await extension.onPurchase(context);
    }
  }
}
