import { Injectable } from '@nestjs/common';
import { DatabaseError } from 'pg';
import { Batcher } from '../../common/batcher';
import { Clock } from '../../common/clock';
import { parseIntegerId } from '../../common/ids';
import { Principal } from '../../common/principal';
import { UsageRecordAttributes } from './billing.dto';
import { UsageRecord } from './usage-record.entity';
import {
  UsagePost,
  UsagePosted,
  UsageRecordRepository,
} from './usage-record.repository';
import { UsageBatchRepository, UsageEntry } from './usage-batch.repository';
import { BillingErrors } from './billing.errors';

/** The most single posts one statement writes. */
const POSTS_PER_STATEMENT = 200;

/** Usage records: reporting metered usage and reading it back. */
@Injectable()
export class UsageRecordService {
  /**
   * Single posts made while one statement is in flight go together in the
   * next: one round trip and one commit (one WAL flush) for all of them,
   * each answered only once that commit is done. A statement that
   * PostgreSQL refused changed nothing, so its posts are then written one
   * by one and an error that one post caused reaches only its caller.
   */
  private readonly posts = new Batcher<UsagePost, UsagePosted>(
    (posts) => this.records.post(posts, this.clock.now()),
    POSTS_PER_STATEMENT,
    (error) => error instanceof DatabaseError,
  );

  constructor(
    private readonly records: UsageRecordRepository,
    private readonly batches: UsageBatchRepository,
    private readonly clock: Clock,
  ) {}

  /**
   * POST: the record and its period's totals, written atomically with the
   * subscription share-locked, together with the posts made at the same
   * moment (see UsageRecordRepository.post); refused without writing
   * anything when the item is not usage-based or its subscription has ended.
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
        : await this.posts.call({
            principal,
            itemId,
            action: input.action ?? 'increment',
            quantity: input.quantity,
          });
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
