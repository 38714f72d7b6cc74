import { Injectable, OnModuleInit } from '@nestjs/common';
import { Principal } from '../../common/principal';
import {
  PurchaseContext,
  PurchaseExtension,
  PurchaseExtensions,
} from '../checkout/purchase-extension';
import { formatFileSize } from '../catalog/catalog-format';
import {
  DELIVERY_LINK_TTL_SECONDS,
  DeliveryService,
} from '../delivery/delivery.service';
import { InvoiceService } from '../invoice/invoice.service';
import { LicenseKeyService } from '../licensing/license-key.service';
import { OrderItemReader, OrderReader } from '../order/order.reader';
import { OrderService } from '../order/order.service';
import { StoreService } from '../store/store.service';
import { buyerTaxNumberLine, sellerLines } from '../store/store-legal';
import { MailMessage } from './mail-message.entity';
import { RenderedMail } from './mail-kinds';
import { MailOutbox } from './mail-outbox';
import { MailRenderer, MailRenderers } from './mail-renderers';
import { renderReceipt } from './order-receipt.template';

/** The checkout's receipt texts, kept on the message (a buy_now_url has none). */
interface ReceiptData {
  buttonText?: string;
  linkUrl?: string;
  thankYouNote?: string;
}

const DEFAULT_BUTTON_TEXT = 'View your order';

/**
 * The order receipt: recorded in the purchase's transaction (after the
 * license keys and the subscription: last in PURCHASE_EXTENSION_ORDER),
 * unless the checkout switched it off with `checkout_options.send_receipt: false`;
 * rendered by the worker from the order as it is then.
 */
@Injectable()
export class OrderReceipt
  implements PurchaseExtension, MailRenderer, OnModuleInit
{
  readonly name = 'mail';
  readonly kind = 'order_receipt';

  constructor(
    private readonly extensions: PurchaseExtensions,
    private readonly renderers: MailRenderers,
    private readonly outbox: MailOutbox,
    private readonly orders: OrderService,
    private readonly orderReader: OrderReader,
    private readonly orderItems: OrderItemReader,
    private readonly stores: StoreService,
    private readonly licenseKeys: LicenseKeyService,
    private readonly invoices: InvoiceService,
    private readonly delivery: DeliveryService,
  ) {}

  onModuleInit() {
    this.extensions.register(this);
    this.renderers.register(this);
  }

  async onPurchase(context: PurchaseContext): Promise<void> {
    const { checkout, order, store } = context;
    if (checkout?.checkoutOptions.send_receipt === false) return;
    if (store.mailDisabledKinds.includes(this.kind)) return;
    const options = checkout?.productOptions;
    const data: ReceiptData = {};
    if (options?.receipt_button_text)
      data.buttonText = options.receipt_button_text;
    if (options?.receipt_link_url) data.linkUrl = options.receipt_link_url;
    if (options?.receipt_thank_you_note)
      data.thankYouNote = options.receipt_thank_you_note;
    await this.outbox.record(context.manager, {
      kind: 'order_receipt',
      storeId: order.storeId,
      customerId: order.customerId,
      testMode: order.testMode,
      recordId: order.id,
      to: order.userEmail,
      data: data as Record<string, unknown>,
      now: context.now,
    });
  }

  async render(message: MailMessage): Promise<RenderedMail | null> {
    const store = await this.stores.findById(message.storeId);
    if (!store) return null;
    // The store owner's view of the order, in the order's mode.
    const scope: Principal = {
      userId: store.userId,
      apiKeyId: 0,
      testMode: message.testMode,
    };
    const order = await this.orderReader.findOne(scope, message.recordId);
    if (!order) return null;
    const [items, keys, downloads] = await Promise.all([
      this.orderItems.findByFilter(scope, 'order_id', [order.id]),
      this.licenseKeys.findByFilter(scope, 'order_id', [order.id]),
      this.delivery.orderDownloads(order.id),
    ]);
    const data = message.data as ReceiptData;
    const receiptUrl = this.orders.receiptUrl(order);
    return renderReceipt({
      store: { name: store.name, logoUrl: store.avatarUrl },
      testMode: order.testMode,
      orderNumber: order.orderNumber,
      date: order.createdAt,
      buyerName: order.userName,
      currency: order.currency,
      items: items.map((item) => ({
        name:
          item.variantName && item.variantName !== 'Default'
            ? `${item.productName} – ${item.variantName}`
            : item.productName,
        quantity: item.quantity,
        total: item.price * item.quantity,
      })),
      subtotal: order.subtotal,
      discountTotal: order.discountTotal,
      setupFee: order.setupFee,
      tax: order.tax,
      taxName: order.taxName,
      taxRate: order.taxRate,
      taxInclusive: order.taxInclusive,
      taxNote: order.taxNote,
      total: order.total,
      seller: sellerLines(store, order.billingCountry),
      invoiceNumber: order.invoiceNumber,
      buyerTaxNumber: buyerTaxNumberLine(order.billingCountry, order.taxNumber),
      thankYouNote: data.thankYouNote ?? null,
      button: {
        text: data.buttonText ?? DEFAULT_BUTTON_TEXT,
        url: data.linkUrl ?? receiptUrl,
      },
      licenseKeys: keys
        .toSorted((a, b) => a.id - b.id)
        .map((key) => ({
          product:
            key.variantName && key.variantName !== 'Default'
              ? `${key.productName} – ${key.variantName}`
              : key.productName,
          key: key.key,
          activationLimit: key.activationLimit,
          expiresAt: key.expiresAt,
        })),
      downloads: downloads.map((file) => ({
        name: file.name,
        size: formatFileSize(file.size),
        url: file.url,
      })),
      downloadLinkHours: DELIVERY_LINK_TTL_SECONDS / 3600,
      invoiceUrl: this.invoices.link('orders', order.id, {
        userId: store.userId,
        testMode: order.testMode,
      }),
    });
  }
}
