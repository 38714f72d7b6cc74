import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository, SelectQueryBuilder } from 'typeorm';
import { FilterValue, ListQuery, Page } from '../../common/list-query';
import { Principal } from '../../common/principal';
import { listPage } from '../../database/list-page';
import { scoped } from '../../database/tenancy';
import { Webhook } from './webhook.entity';

const SORT_COLUMNS: Record<string, string> = {
  created_at: 'webhook.created_at',
  updated_at: 'webhook.updated_at',
};

/** Every query for webhooks. A webhook is visible to its store's user, in its mode. */
@Injectable()
export class WebhookRepository {
  constructor(
    @InjectRepository(Webhook) private readonly webhooks: Repository<Webhook>,
  ) {}

  private visible(principal: Principal): SelectQueryBuilder<Webhook> {
    return scoped(
      this.webhooks.createQueryBuilder('webhook'),
      'webhook',
      principal,
    );
  }

  findVisible(principal: Principal, ids: number[]): Promise<Webhook[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.visible(principal)
      .andWhere('webhook.id IN (:...ids)', { ids })
      .orderBy('webhook.id')
      .getMany();
  }

  /** The sealed signing secret of one of the caller's webhooks, or null. */
  async sealedSecret(principal: Principal, id: number): Promise<string | null> {
    const row = await this.visible(principal)
      .select('webhook.secret_encrypted', 'secret')
      .andWhere('webhook.id = :id', { id })
      .getRawOne<{ secret: string }>();
    return row?.secret ?? null;
  }

  findByStores(principal: Principal, storeIds: FilterValue[]) {
    if (storeIds.length === 0) return Promise.resolve([]);
    return this.visible(principal)
      .andWhere('webhook.store_id IN (:...storeIds)', { storeIds })
      .orderBy('webhook.created_at')
      .addOrderBy('webhook.id')
      .getMany();
  }

  findPage(principal: Principal, query: ListQuery): Promise<Page<Webhook>> {
    const builder = this.visible(principal);
    if (query.filters.store_id !== undefined) {
      builder.andWhere('webhook.store_id = :storeId', {
        storeId: query.filters.store_id,
      });
    }
    return listPage(builder, 'webhook', SORT_COLUMNS, query);
  }

  async insert(
    fields: Omit<Webhook, 'id' | 'createdAt' | 'updatedAt' | 'lastSentAt'>,
  ) {
    const result = await this.webhooks.insert({ ...fields, lastSentAt: null });
    return (result.identifiers[0] as { id: number }).id;
  }

  async update(
    id: number,
    fields: Partial<Pick<Webhook, 'url' | 'events' | 'secretEncrypted'>>,
  ): Promise<void> {
    await this.webhooks.update(id, fields);
  }

  async delete(id: number): Promise<void> {
    await this.webhooks.delete(id);
  }
}
