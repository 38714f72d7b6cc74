import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { FilterValue, ListQuery, Page } from '../../common/list-query';
import { Principal } from '../../common/principal';
import { scoped } from '../../database/tenancy';
import { applyFilters, newestFirst, pageOf } from './billing-list';
import { SubscriptionInvoice } from './subscription-invoice.entity';

/**
 * What an invoice adds to revenue, in USD cents: a paid charge less its
 * refunds. The initial invoice is the first order's charge, which the order
 * counts: only the refunds issued on it come off.
 */
const NET_REVENUE_USD = `CASE WHEN billing_reason = 'initial' THEN -refunded_amount_usd
  ELSE total_usd - refunded_amount_usd END`;

/** Invoices that took money: paid ones, partly refunded or not, and refunded ones. */
const CHARGED = `status IN ('paid', 'refunded')`;

/** Every query for subscription invoices. */
@Injectable()
export class SubscriptionInvoiceRepository {
  constructor(
    @InjectRepository(SubscriptionInvoice)
    private readonly invoices: Repository<SubscriptionInvoice>,
  ) {}

  findVisible(
    principal: Principal,
    ids: number[],
  ): Promise<SubscriptionInvoice[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return scoped(
      this.invoices.createQueryBuilder('invoice'),
      'invoice',
      principal,
    )
      .andWhere('invoice.id IN (:...ids)', { ids })
      .getMany();
  }

  findPage(
    principal: Principal,
    query: ListQuery,
  ): Promise<Page<SubscriptionInvoice>> {
    const builder = this.invoices.createQueryBuilder('invoice');
    const { refunded, ...filters } = query.filters;
    applyFilters(builder, 'invoice', filters, {});
    if (refunded !== undefined) {
      // Refunded means fully refunded: a partial refund keeps `paid`.
      builder.andWhere(
        refunded
          ? "invoice.status = 'refunded'"
          : "invoice.status <> 'refunded'",
      );
    }
    return pageOf(builder, 'invoice', query, principal);
  }

  findByFilter(
    principal: Principal,
    filter: string,
    values: FilterValue[],
  ): Promise<SubscriptionInvoice[]> {
    const builder = scoped(
      this.invoices.createQueryBuilder('invoice'),
      'invoice',
      principal,
    );
    applyFilters(builder, 'invoice', { [filter]: values }, {});
    return newestFirst(builder, 'invoice');
  }

  /**
   * The store's invoice (in the mode) whose payment is `paymentReference`
   * (a processor's event about that payment).
   */
  findByPaymentReference(
    tenancy: { storeId: number; testMode: boolean },
    paymentReference: string,
  ): Promise<SubscriptionInvoice | null> {
    return scoped(
      this.invoices.createQueryBuilder('invoice'),
      'invoice',
      tenancy,
    )
      .andWhere('invoice.payment_reference = :paymentReference', {
        paymentReference,
      })
      .getOne();
  }

  findById(id: number): Promise<SubscriptionInvoice | null> {
    return this.invoices.findOneBy({ id });
  }

  /** An invoice by id alone, locked FOR UPDATE (payment settlements). */
  lock(
    manager: EntityManager,
    id: number,
  ): Promise<SubscriptionInvoice | null> {
    return manager
      .createQueryBuilder(SubscriptionInvoice, 'invoice')
      .where('invoice.id = :id', { id })
      .setLock('pessimistic_write')
      .getOne();
  }

  /** The subscription an invoice bills, by the invoice's id alone (settlements). */
  async subscriptionIdOf(
    manager: EntityManager,
    id: number,
  ): Promise<number | null> {
    const invoice = await manager.findOne(SubscriptionInvoice, {
      select: { id: true, subscriptionId: true },
      where: { id },
    });
    return invoice?.subscriptionId ?? null;
  }

  lockVisible(
    manager: EntityManager,
    principal: Principal,
    id: number,
  ): Promise<SubscriptionInvoice | null> {
    return scoped(
      manager.createQueryBuilder(SubscriptionInvoice, 'invoice'),
      'invoice',
      principal,
    )
      .andWhere('invoice.id = :id', { id })
      .setLock('pessimistic_write')
      .getOne();
  }

  /** The renewal invoice still waiting for payment (dunning), if any. */
  openRenewal(
    manager: EntityManager,
    subscriptionId: number,
  ): Promise<SubscriptionInvoice | null> {
    return manager.findOne(SubscriptionInvoice, {
      where: { subscriptionId, status: 'pending' },
      order: { id: 'DESC' },
    });
  }

  renewalFor(
    manager: EntityManager,
    subscriptionId: number,
    periodStart: Date,
  ): Promise<SubscriptionInvoice | null> {
    return manager.findOneBy(SubscriptionInvoice, {
      subscriptionId,
      periodStart,
      billingReason: 'renewal',
    });
  }

  insert(
    manager: EntityManager,
    fields: Partial<SubscriptionInvoice>,
  ): Promise<SubscriptionInvoice> {
    return manager.save(
      SubscriptionInvoice,
      manager.create(SubscriptionInvoice, fields),
    );
  }

  save(
    manager: EntityManager,
    invoice: SubscriptionInvoice,
  ): Promise<SubscriptionInvoice> {
    return manager.save(SubscriptionInvoice, invoice);
  }

  /** Net revenue per store in one mode, all time and since `since`. */
  async revenueByStore(
    storeIds: number[],
    testMode: boolean,
    since: Date,
  ): Promise<{ storeId: number; total: number; sinceThen: number }[]> {
    if (storeIds.length === 0) return [];
    const rows: { store_id: number; total: string; since_then: string }[] =
      await this.invoices.query(
        `SELECT store_id,
                coalesce(sum(${NET_REVENUE_USD}), 0) AS total,
                coalesce(sum(${NET_REVENUE_USD}) FILTER (WHERE created_at >= $3), 0) AS since_then
           FROM subscription_invoices
          WHERE store_id = ANY($1) AND test_mode = $2 AND ${CHARGED}
          GROUP BY store_id`,
        [storeIds, testMode, since],
      );
    return rows.map((row) => ({
      storeId: row.store_id,
      total: Number(row.total),
      sinceThen: Number(row.since_then),
    }));
  }

  /** Net revenue per customer. */
  async revenueByCustomer(customerIds: number[]): Promise<Map<number, number>> {
    if (customerIds.length === 0) return new Map();
    const rows: { customer_id: number; revenue: string }[] =
      await this.invoices.query(
        `SELECT customer_id, coalesce(sum(${NET_REVENUE_USD}), 0) AS revenue
           FROM subscription_invoices
          WHERE customer_id = ANY($1) AND ${CHARGED}
          GROUP BY customer_id`,
        [customerIds],
      );
    return new Map(rows.map((r) => [r.customer_id, Number(r.revenue)]));
  }
}
