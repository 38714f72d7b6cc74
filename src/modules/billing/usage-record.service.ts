import { Injectable } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { Transactions } from '../../database/transactions';
import { Principal } from '../../http/auth/principal';
import { FilterValue, ListQuery } from '../../http/json-api/list-query';
import { Page, parseIntegerId } from '../../http/json-api/resource';
import { UsageRecordAttributes } from './billing.dto';
import { SubscriptionRepository } from './subscription.repository';
import { UsageRecord } from './usage-record.entity';
import { UsageRecordRepository } from './usage-record.repository';

/** Usage records: reporting metered usage and reading it back. */
@Injectable()
export class UsageRecordService {
  constructor(
    private readonly records: UsageRecordRepository,
    private readonly subscriptions: SubscriptionRepository,
    private readonly transactions: Transactions,
    private readonly clock: Clock,
  ) {}

  findMany(principal: Principal, ids: number[]) {
    return this.records.findVisible(principal, ids);
  }

  findPage(principal: Principal, query: ListQuery): Promise<Page<UsageRecord>> {
    return this.records.findPage(principal, query);
  }

  findByFilter(principal: Principal, filter: string, values: FilterValue[]) {
    return this.records.findByFilter(principal, filter, values);
  }

  /**
   * POST: the record and its period's totals in one transaction. The
   * subscription is share-locked, so records never land in a period that a
   * renewal is closing at the same moment.
   */
  create(
    principal: Principal,
    input: UsageRecordAttributes,
    itemIdRaw: string,
  ): Promise<UsageRecord> {
    return this.transactions.run(async (manager) => {
      const itemId = parseIntegerId(itemIdRaw);
      const [item] =
        itemId === null
          ? []
          : await this.subscriptions.findVisibleItems(
              principal,
              [itemId],
              manager,
            );
      if (!item) throw AppError.relatedNotFound('subscription-item');
      const s = await this.subscriptions.lockShared(
        manager,
        item.subscriptionId,
      );
      if (!s) throw AppError.relatedNotFound('subscription-item');
      if (!item.isUsageBased) {
        throw AppError.unprocessable({
          detail: 'The subscription item is not usage-based.',
          source: { pointer: '/data/relationships/subscription-item' },
        });
      }
      if (s.status === 'cancelled' || s.status === 'expired') {
        throw AppError.unprocessable({
          detail: `Usage cannot be reported for a ${s.status} subscription.`,
          source: { pointer: '/data/relationships/subscription-item' },
        });
      }
      const now = this.clock.now();
      const action = input.action ?? 'increment';
      const record = await this.records.insert(manager, {
        subscriptionItemId: item.id,
        storeId: item.storeId,
        testMode: item.testMode,
        quantity: input.quantity,
        action,
        periodStart: s.currentPeriodStart,
        createdAt: now,
        updatedAt: now,
      });
      await this.records.apply(
        manager,
        item.id,
        s.currentPeriodStart,
        action,
        input.quantity,
      );
      return record;
    });
  }
}
