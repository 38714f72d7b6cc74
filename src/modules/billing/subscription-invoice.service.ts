import { Injectable } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { FilterValue, ListQuery, Page } from '../../common/list-query';
import { Principal } from '../../common/principal';
import { nextRefund } from '../../common/refunds';
import { Transactions } from '../../database/transactions';
import { BillingPayments } from './billing-payments';
import { InvoiceView } from './billing-views';
import { SubscriptionBilling } from './subscription-billing.service';
import { SubscriptionInvoiceRepository } from './subscription-invoice.repository';
import { SubscriptionRepository } from './subscription.repository';

/** Subscription invoices: reads and refunds. */
@Injectable()
export class SubscriptionInvoiceService {
  constructor(
    private readonly invoices: SubscriptionInvoiceRepository,
    private readonly subscriptions: SubscriptionRepository,
    private readonly billing: SubscriptionBilling,
    private readonly transactions: Transactions,
    private readonly clock: Clock,
    private readonly payments: BillingPayments,
  ) {}

  async findMany(principal: Principal, ids: number[]): Promise<InvoiceView[]> {
    return (await this.invoices.findVisible(principal, ids)).map((i) =>
      this.billing.invoiceView(i),
    );
  }

  async findPage(
    principal: Principal,
    query: ListQuery,
  ): Promise<Page<InvoiceView>> {
    const page = await this.invoices.findPage(principal, query);
    return {
      records: page.records.map((i) => this.billing.invoiceView(i)),
      total: page.total,
    };
  }

  async findByFilter(
    principal: Principal,
    filter: string,
    values: FilterValue[],
  ): Promise<InvoiceView[]> {
    return (await this.invoices.findByFilter(principal, filter, values)).map(
      (i) => this.billing.invoiceView(i),
    );
  }

  /**
   * POST refund: `amount` cents of what is left (all of it when omitted),
   * through the gateway, by the refund rule invoices share with orders
   * (`nextRefund`), then `subscription_payment_refunded`.
   */
  refund(
    principal: Principal,
    id: number,
    amount: number | undefined,
  ): Promise<InvoiceView> {
    return this.transactions.run(async (manager) => {
      const invoice = await this.invoices.lockVisible(manager, principal, id);
      if (!invoice) throw AppError.notFound();
      const now = this.clock.now();
      const refund = nextRefund(
        invoice,
        'invoice',
        amount,
        Number(invoice.currencyRate),
        now,
      );
      await this.payments.refund({
        paymentId: refund.paymentId,
        amount: refund.amount,
        currency: invoice.currency,
        testMode: invoice.testMode,
        reference: `subscription-invoice-${invoice.id}-refund-${refund.fields.refundedAmount}`,
      });
      Object.assign(invoice, refund.fields, { updatedAt: now });
      await this.invoices.save(manager, invoice);
      const s = await this.subscriptions.lock(manager, invoice.subscriptionId);
      await this.billing.emitInvoice(
        manager,
        'subscription_payment_refunded',
        invoice,
        s!,
      );
      return this.billing.invoiceView(invoice);
    });
  }
}
