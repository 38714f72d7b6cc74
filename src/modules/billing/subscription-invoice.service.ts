import { Injectable, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { FilterValue, ListQuery, Page } from '../../common/list-query';
import { Principal } from '../../common/principal';
import { nextRefund, revertedRefund } from '../../common/refunds';
import { Transactions } from '../../database/transactions';
import {
  PaymentAttempt,
  PaymentOutcome,
} from '../payment/payment-attempt.entity';
import { PaymentAttempts } from '../payment/payment-attempts';
import {
  ProcessorRefund,
  ProcessorRefunds,
} from '../payment/processor-refunds';
import { PaymentGateways } from '../payment/payment-gateways';
import { InvoiceView } from './billing-views';
import { SubscriptionBilling } from './subscription-billing.service';
import { SubscriptionInvoiceRepository } from './subscription-invoice.repository';
import { SubscriptionRepository } from './subscription.repository';

/** The payment attempts of subscription invoice refunds. */
const INVOICE_REFUND = 'invoice_refund';

/** Subscription invoices: reads and refunds. */
@Injectable()
export class SubscriptionInvoiceService implements OnModuleInit {
  constructor(
    private readonly invoices: SubscriptionInvoiceRepository,
    private readonly subscriptions: SubscriptionRepository,
    private readonly billing: SubscriptionBilling,
    private readonly transactions: Transactions,
    private readonly clock: Clock,
    private readonly gateways: PaymentGateways,
    private readonly attempts: PaymentAttempts,
    private readonly processorRefunds: ProcessorRefunds,
  ) {}

  onModuleInit() {
    this.attempts.register(INVOICE_REFUND, {
      settle: (manager, attempt, outcome) =>
        this.settleRefund(manager, attempt, outcome),
      reverse: (manager, attempt) => this.reverseRefund(manager, attempt),
    });
  }

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
   * (`nextRefund`), then `subscription_payment_refunded`. As for orders, the
   * refund is stored as a pending payment attempt under the invoice's row
   * lock and the processor is called after that commit.
   */
  async refund(
    principal: Principal,
    id: number,
    amount: number | undefined,
  ): Promise<InvoiceView> {
    const attempt = await this.transactions.run(async (manager) => {
      const invoice = await this.invoices.lockVisible(manager, principal, id);
      if (!invoice) throw AppError.notFound();
      return this.attempts.beginRefund(manager, INVOICE_REFUND, invoice, {
        noun: 'invoice',
        amount,
        currencyRate: Number(invoice.currencyRate),
        description: `Refund of subscription invoice ${invoice.id}`,
      });
    });
    await this.attempts.complete(attempt);
    const [invoice] = await this.invoices.findVisible(principal, [id]);
    return this.billing.invoiceView(invoice);
  }

  /** The store's invoice (in the mode) paid by the processor's payment `paymentId`. */
  async findIdByPaymentReference(
    storeId: number,
    testMode: boolean,
    paymentId: string,
  ): Promise<number | null> {
    const invoice = await this.invoices.findByPaymentReference(
      { storeId, testMode },
      paymentId,
    );
    return invoice?.id ?? null;
  }

  /**
   * Records refunds the processor reports on the invoice's payment that
   * Zest did not make (its dashboard), as `refund` would have: the
   * invoice's refund fields and `subscription_payment_refunded`, once per
   * processor refund.
   */
  recordProcessorRefunds(
    id: number,
    refunds: ProcessorRefund[],
  ): Promise<number> {
    return this.transactions.run(async (manager) => {
      const invoice = await this.invoices.lock(manager, id);
      if (!invoice) return 0;
      return this.processorRefunds.record(
        manager,
        INVOICE_REFUND,
        invoice,
        refunds,
        `Refund of subscription invoice ${invoice.id} at the payment processor`,
      );
    });
  }

  private async settleRefund(
    manager: EntityManager,
    attempt: PaymentAttempt,
    outcome: PaymentOutcome,
  ): Promise<void> {
    if (outcome.status !== 'succeeded') return;
    const invoice = await this.invoices.lock(manager, attempt.subjectId);
    if (!invoice) return;
    const now = this.clock.now();
    const refund = nextRefund(
      invoice,
      'invoice',
      attempt.amount,
      Number(invoice.currencyRate),
      now,
    );
    Object.assign(invoice, refund.fields, { updatedAt: now });
    await this.invoices.save(manager, invoice);
    const s = await this.subscriptions.lock(manager, invoice.subscriptionId);
    await this.billing.emitInvoice(
      manager,
      'subscription_payment_refunded',
      invoice,
      s!,
      { refund_amount: refund.amount },
    );
  }

  /** A refund that failed at the processor after it was recorded: the amount is the invoice's again. */
  private async reverseRefund(
    manager: EntityManager,
    attempt: PaymentAttempt,
  ): Promise<void> {
    const invoice = await this.invoices.lock(manager, attempt.subjectId);
    if (!invoice) return;
    Object.assign(
      invoice,
      revertedRefund(invoice, attempt.amount, Number(invoice.currencyRate)),
      { updatedAt: this.clock.now() },
    );
    await this.invoices.save(manager, invoice);
    const s = await this.subscriptions.lock(manager, invoice.subscriptionId);
    await this.billing.emitInvoice(
      manager,
      'subscription_payment_refund_failed',
      invoice,
      s!,
      { refund_amount: attempt.amount },
    );
  }
}
