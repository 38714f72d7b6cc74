import { Injectable, OnModuleInit } from '@nestjs/common';
import { Principal } from '../../common/principal';
import { orderStatusLabel } from '../order/order-status';
import { OrderItemReader, OrderReader } from '../order/order.reader';
import { Order } from '../order/order.entity';
import { ReceiptExtras, ReceiptExtraSource } from '../order/receipt-extras';
import { StoreService } from '../store/store.service';
import { InvoiceSource, InvoiceSources } from './invoice-source';
import { InvoiceService } from './invoice.service';
import { invoiceStore } from './invoice-store';
import { InvoiceData, InvoiceLine } from './invoice-view';

/** Invoices of orders (`POST /v1/orders/:id/generate-invoice`). */
@Injectable()
export class OrderInvoiceSource
  implements InvoiceSource, ReceiptExtraSource, OnModuleInit
{
  readonly type = 'orders';

  constructor(
    private readonly orders: OrderReader,
    private readonly items: OrderItemReader,
    private readonly stores: StoreService,
    private readonly sources: InvoiceSources,
    private readonly invoices: InvoiceService,
    private readonly receipts: ReceiptExtras,
  ) {}

  onModuleInit() {
    this.sources.register(this);
    this.receipts.register(this);
  }

  /**
   * The receipt's and portal's invoice link: the store owner's view of the
   * order in its mode, as the receipt e-mail links it. A failed payment
   * attempt has no invoice.
   */
  async invoiceUrl(order: Order): Promise<string | null> {
    if (order.status === 'failed' || order.status === 'pending') return null;
    const store = await this.stores.findById(order.storeId);
    if (!store) return null;
    return this.invoices.link('orders', order.id, {
      userId: store.userId,
      testMode: order.testMode,
    });
  }

  async load(principal: Principal, id: number): Promise<InvoiceData | null> {
    const order = await this.orders.findOne(principal, id);
    if (!order) return null;
    const [items, store] = await Promise.all([
      this.items.findByFilter(principal, 'order_id', [id]),
      this.stores.findOne(principal, order.storeId),
    ]);
    if (!store) return null;
    const lines: InvoiceLine[] = items.map((item) => ({
      description:
        item.variantName && item.variantName !== 'Default'
          ? `${item.productName} - ${item.variantName}`
          : item.productName,
      quantity: item.quantity,
      unitPrice: item.price,
      total: item.price * item.quantity,
    }));
    if (order.setupFee > 0) {
      lines.push({
        description: 'Setup fee',
        quantity: 1,
        unitPrice: order.setupFee,
        total: order.setupFee,
      });
    }
    const applied = order.taxName !== null;
    return {
      storeId: order.storeId,
      number: String(order.orderNumber),
      invoiceNumber: order.invoiceNumber,
      reference: 'Order',
      issuedAt: order.createdAt,
      currency: order.currency,
      status: order.status,
      statusLabel: orderStatusLabel(order.status),
      testMode: order.testMode,
      store: invoiceStore(store, order.billingCountry),
      customer: {
        name: order.userName,
        email: order.userEmail,
        country: order.billingCountry,
        postcode: order.billingZip,
        state: order.billingRegion,
        taxNumber: order.taxNumber,
      },
      lines,
      subtotal: order.subtotal,
      discountTotal: order.discountTotal,
      tax: order.tax,
      total: order.total,
      taxName: order.taxName,
      taxRate: applied ? order.taxRate.toFixed(2) : null,
      taxInclusive: order.taxInclusive,
      taxNote: order.taxNote,
      refundedAmount: order.refundedAmount,
      refundedAt: order.refundedAt,
    };
  }
}
