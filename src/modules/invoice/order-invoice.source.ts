import { Injectable, OnModuleInit } from '@nestjs/common';
import { Principal } from '../../common/principal';
import { orderStatusLabel } from '../order/order-status';
import { OrderItemReader, OrderReader } from '../order/order.reader';
import { StoreService } from '../store/store.service';
import { InvoiceSource, InvoiceSources } from './invoice-source';
import { invoiceStore } from './invoice-store';
import { InvoiceData, InvoiceLine } from './invoice-view';

/** Invoices of orders (`POST /v1/orders/:id/generate-invoice`). */
@Injectable()
export class OrderInvoiceSource implements InvoiceSource, OnModuleInit {
  readonly type = 'orders';

  constructor(
    private readonly orders: OrderReader,
    private readonly items: OrderItemReader,
    private readonly stores: StoreService,
    private readonly sources: InvoiceSources,
  ) {}

  onModuleInit() {
    this.sources.register(this);
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
      issuedAt: order.createdAt,
      currency: order.currency,
      status: order.status,
      statusLabel: orderStatusLabel(order.status),
      testMode: order.testMode,
      store: invoiceStore(store),
      customer: {
        name: order.userName,
        email: order.userEmail,
        country: order.billingCountry,
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
