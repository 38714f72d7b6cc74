import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, Repository } from 'typeorm';
import { EntityRows } from '../../database/entity-rows';
import { StripeCredentials } from './stripe-credentials.entity';

/** Every query for stores' Stripe credentials. */
@Injectable()
export class StripeCredentialsRepository {
  private readonly rows: EntityRows<StripeCredentials>;

  constructor(
    @InjectRepository(StripeCredentials)
    private readonly credentials: Repository<StripeCredentials>,
  ) {
    this.rows = new EntityRows(credentials, 'credentials');
  }

  /** Inserts or replaces the store's credentials of one mode. */
  async upsert(
    manager: EntityManager,
    fields: Omit<StripeCredentials, 'id'>,
  ): Promise<void> {
    await manager
      .createQueryBuilder()
      .insert()
      .into(StripeCredentials)
      .values(fields)
      .orUpdate(
        [
          'secret_key_sealed',
          'publishable_key_sealed',
          'webhook_secret_sealed',
          'updated_at',
        ],
        ['store_id', 'test_mode'],
      )
      .execute();
  }

  async delete(
    manager: EntityManager,
    storeId: number,
    testMode: boolean,
  ): Promise<void> {
    await manager
      .getRepository(StripeCredentials)
      .delete({ storeId, testMode });
  }

  async configuredStores(
    storeIds: number[],
    testMode: boolean,
  ): Promise<Set<number>> {
    if (storeIds.length === 0) return new Set();
    const rows = await this.credentials.find({
      select: { storeId: true },
      where: { storeId: In(storeIds), testMode },
    });
    return new Set(rows.map((row) => row.storeId));
  }

  async find(
    storeId: number,
    testMode: boolean,
    manager?: EntityManager,
  ): Promise<StripeCredentials | null> {
    // Every purchase asks (the store's gateway): a prepared statement.
    const [row] = await this.rows.query(
      `SELECT ${this.rows.select} FROM stripe_credentials credentials
        WHERE credentials.store_id = $1 AND credentials.test_mode = $2`,
      [storeId, testMode],
      'stripe-credentials.of-store',
      manager,
    );
    return row ?? null;
  }
}
