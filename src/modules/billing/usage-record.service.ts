import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { parseIntegerId } from '../../common/ids';
import { Principal } from '../../common/principal';
import { UsageRecordAttributes } from './billing.dto';
import { UsageRecord } from './usage-record.entity';
import { UsageRecordRepository } from './usage-record.repository';
import { UsageBatchRepository, UsageEntry } from './usage-batch.repository';
import { BillingErrors } from './billing.errors';

/** Usage records: reporting metered usage and reading it back. */
@Injectable()
export class UsageRecordService {
  constructor(
    private readonly records: UsageRecordRepository,
    private readonly batches: UsageBatchRepository,
    private readonly clock: Clock,
  ) {}

  /**
   * POST: the record and its period's totals, written atomically with the
   * subscription share-locked (see UsageRecordRepository.post); refused
   * without writing anything when the item is not usage-based or its
   * subscription has ended.
   */
  async create(
    principal: Principal,
    input: UsageRecordAttributes,
    itemIdRaw: string,
  ): Promise<UsageRecord> {
    const itemId = parseIntegerId(itemIdRaw);
    const { target, record } =
      itemId === null
        ? { target: null, record: null }
        : await this.records.post(
            principal,
            itemId,
            input.action ?? 'increment',
            input.quantity,
            this.clock.now(),
          );
    if (!target) throw BillingErrors.subscriptionItemNotFound();
    if (!target.isUsageBased) {
      throw BillingErrors.notUsageBased();
    }
    if (!record) {
      throw BillingErrors.usageNotAccepted(target.subscriptionStatus);
    }
    return record;
  }

  /**
   * POST with `data` an array: every record or none. A member whose item
   * cannot take usage refuses the batch with that member's error, pointed
   * at it (`/data/<i>/relationships/subscription-item`); nothing is
   * written. A member whose client id was used before (in its store and
   * mode) adds nothing and answers with the record first posted under it.
   */
  async createBatch(
    principal: Principal,
    members: {
      input: UsageRecordAttributes;
      itemIdRaw: string;
      clientId: string | null;
    }[],
  ): Promise<UsageRecord[]> {
    const entries: UsageEntry[] = [];
    for (const [index, member] of members.entries()) {
      const itemId = parseIntegerId(member.itemIdRaw);
      if (itemId === null)
        throw BillingErrors.inBatch(
          index,
          BillingErrors.subscriptionItemNotFound(),
        );
      entries.push({
        itemId,
        action: member.input.action ?? 'increment',
        quantity: member.input.quantity,
        clientId: member.clientId,
      });
    }
    const outcome = await this.batches.post(
      principal,
      entries,
      this.clock.now(),
    );
    if ('records' in outcome) return outcome.records;
    const { refused, target } = outcome;
    throw BillingErrors.inBatch(
      refused,
      !target
        ? BillingErrors.subscriptionItemNotFound()
        : !target.isUsageBased
          ? BillingErrors.notUsageBased()
          : BillingErrors.usageNotAccepted(target.subscriptionStatus),
    );
  }
}
