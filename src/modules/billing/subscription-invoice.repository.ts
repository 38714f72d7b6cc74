import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { Principal } from '../../http/auth/principal';
import { FilterValue, ListQuery } from '../../http/json-api/list-query';
import { Page } from '../../http/json-api/resource';
import { applyFilters, newestFirst, pageOf, scopeTo } from './billing-list';
import { SubscriptionInvoice } from './subscription-invoice.entity';

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
    return scopeTo(
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
    const builder = scopeTo(
      this.invoices.createQueryBuilder('invoice'),
      'invoice',
      principal,
    );
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
    const builder = scopeTo(
      this.invoices.createQueryBuilder('invoice'),
      'invoice',
      principal,
    );
    applyFilters(builder, 'invoice', { [filter]: values }, {});
    return newestFirst(builder, 'invoice');
  }

  findById(id: number): Promise<SubscriptionInvoice | null> {
    return this.invoices.findOneBy({ id });
  }

  lockVisible(
    manager: EntityManager,
    principal: Principal,
    id: number,
  ): Promise<SubscriptionInvoice | null> {
    return scopeTo(
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
}
