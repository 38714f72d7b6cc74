import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { StripeCustomer } from './stripe-customer.entity';

/** Every query for the links between Zest customers and Stripe Customers. */
@Injectable()
export class StripeCustomerRepository {
  constructor(
    @InjectRepository(StripeCustomer)
    private readonly links: Repository<StripeCustomer>,
  ) {}

  async find(
    storeId: number,
    testMode: boolean,
    customerId: number,
  ): Promise<string | null> {
    const row = await this.links.findOneBy({ storeId, testMode, customerId });
    return row?.stripeCustomerId ?? null;
  }

  /** Stores the link unless one exists; returns the stored one. */
  async insertOrFind(fields: Omit<StripeCustomer, 'id'>): Promise<string> {
    await this.links
      .createQueryBuilder()
      .insert()
      .into(StripeCustomer)
      .values(fields)
      .orIgnore()
      .execute();
    const row = await this.links.findOneByOrFail({
      storeId: fields.storeId,
      testMode: fields.testMode,
      customerId: fields.customerId,
    });
    return row.stripeCustomerId;
  }

  /** Forgets a store's links of a mode (its Stripe account changed), in the caller's transaction. */
  async forget(
    manager: EntityManager,
    storeId: number,
    testMode: boolean,
  ): Promise<void> {
    await manager.getRepository(StripeCustomer).delete({ storeId, testMode });
  }
}
