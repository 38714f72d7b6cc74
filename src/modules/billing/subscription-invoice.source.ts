import { Injectable, OnModuleInit } from '@nestjs/common';
import { Principal } from '../../common/principal';
import { CustomerService } from '../customer/customer.service';
import { InvoiceSource, InvoiceSources } from '../invoice/invoice-source';
import { invoiceStore } from '../invoice/invoice-store';
import { InvoiceData } from '../invoice/invoice-view';
import { StoreService } from '../store/store.service';
import {
  INVOICE_STATUS_FORMATTED,
  SubscriptionInvoice,
} from './subscription-invoice.entity';
import { SubscriptionInvoiceRepository } from './subscription-invoice.repository';
import { SubscriptionRepository } from './subscription.repository';
import { OrderReader } from '../order/order.reader';

/**
 * Invoices of subscription invoices: `POST /v1/subscription-invoices/:id/
 * generate-invoice` and `urls.invoice_url`. Everything comes from the
 * invoice's own record (lines, tax terms and names frozen at invoicing), so
 * a later plan or quantity change does not rewrite an old invoice.
 */
@Injectable()
export class SubscriptionInvoiceSource implements InvoiceSource, OnModuleInit {
  readonly type = 'subscription-invoices';

  constructor(
    private readonly invoices: SubscriptionInvoiceRepository,
    private readonly stores: StoreService,
    private readonly customers: CustomerService,
    private readonly subscriptions: SubscriptionRepository,
    private readonly orders: OrderReader,
    private readonly sources: InvoiceSources,
  ) {}

  onModuleInit() {
    this.sources.register(this);
  }

  async load(principal: Principal, id: number): Promise<InvoiceData | null> {
    const [invoice] = await this.invoices.findVisible(principal, [id]);
    return invoice ? this.data(invoice) : null;
  }

  /** `urls.invoice_url`: serves only what that attribute shows, so nothing while pending. */
  async loadLinked(id: number): Promise<InvoiceData | null> {
    const invoice = await this.invoices.findById(id);
    if (!invoice || invoice.status === 'pending') return null;
    return this.data(invoice);
  }

  private async data(
    invoice: SubscriptionInvoice,
  ): Promise<InvoiceData | null> {
    const [store, customer, subscription] = await Promise.all([
      this.stores.findById(invoice.storeId),
      this.customers.findById(invoice.customerId),
      this.subscriptions.findById(invoice.subscriptionId),
    ]);
    if (!store) return null;
    // The buyer's billing evidence and tax number are the first order's.
    const order = subscription
      ? await this.orders.findOne(
          { userId: store.userId, apiKeyId: 0, testMode: invoice.testMode },
          subscription.orderId,
        )
      : null;
    const country = order?.billingCountry ?? customer?.country ?? null;
    return {
      storeId: invoice.storeId,
      number: String(invoice.id),
      invoiceNumber: invoice.invoiceNumber,
      reference: 'Subscription invoice',
      issuedAt: invoice.createdAt,
      period: { start: invoice.periodStart, end: invoice.periodEnd },
      currency: invoice.currency,
      status: invoice.status,
      statusLabel: INVOICE_STATUS_FORMATTED[invoice.status],
      testMode: invoice.testMode,
      store: invoiceStore(store, country),
      customer: {
        name: invoice.userName,
        email: invoice.userEmail,
        country,
        postcode: order?.billingZip ?? null,
        state: order?.billingRegion ?? null,
        taxNumber: order?.taxNumber ?? null,
      },
      lines: invoice.lines.map((line) => ({
        description: line.description,
        quantity: line.quantity,
        unitPrice: line.unit_price,
        total: line.total,
      })),
      subtotal: invoice.subtotal,
      discountTotal: invoice.discountTotal,
      tax: invoice.tax,
      total: invoice.total,
      taxName: invoice.taxName,
      taxRate:
        invoice.taxName !== null ? Number(invoice.taxRate).toFixed(2) : null,
      taxInclusive: invoice.taxInclusive,
      taxNote: invoice.taxNote,
      refundedAmount: invoice.refundedAmount,
      refundedAt: invoice.refundedAt,
    };
  }
}
