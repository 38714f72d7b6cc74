import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
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
}
