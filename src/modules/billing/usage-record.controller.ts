import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import type { RawQuery } from '../../common/list-query';
import type { Principal } from '../../common/principal';
import { type WriteDocument } from '../../common/write-document';
import { CurrentPrincipal } from '../../http/auth/principal';
import { IntegerIdPipe } from '../../http/json-api/integer-id.pipe';
import { JsonApi } from '../../http/json-api/json-api.service';
import { JsonApiBody } from '../../http/json-api/write-document';
import { UsageRecordAttributes } from './billing.dto';
import { UsageRecordSerializer } from './usage-record.serializer';
import { UsageRecordService } from './usage-record.service';
import { BillingErrors } from './billing.errors';

/** The most records one batch post takes. */
export const USAGE_BATCH_LIMIT = 1000;

@Controller('v1/usage-records')
export class UsageRecordController {
  constructor(
    private readonly serializer: UsageRecordSerializer,
    private readonly usage: UsageRecordService,
    private readonly jsonApi: JsonApi,
  ) {}

  @Get()
  list(@CurrentPrincipal() principal: Principal, @Query() query: RawQuery) {
    return this.jsonApi.readList(this.serializer, principal, query);
  }

  @Get(':id')
  one(
    @CurrentPrincipal() principal: Principal,
    @Param('id', IntegerIdPipe) id: number,
    @Query() query: RawQuery,
  ) {
    return this.jsonApi.readOne(this.serializer, principal, id, query);
  }

  /**
   * One usage record, or a batch (extension): `data` an array of up to
   * USAGE_BATCH_LIMIT records, written all or none, each idempotent by its
   * optional client `id`; the answer's `data` is then the array of records.
   */
  @Post()
  @HttpCode(201)
  async create(
    @CurrentPrincipal() principal: Principal,
    @JsonApiBody({
      type: 'usage-records',
      attributes: UsageRecordAttributes,
      // The SDK sends `subscription-item`; the spec's table writes `subscription_item`.
      relationships: {
        'subscription-item': { type: 'subscription-items' },
        subscription_item: { type: 'subscription-items' },
      },
      batch: USAGE_BATCH_LIMIT,
    })
    body:
      | WriteDocument<UsageRecordAttributes>
      | WriteDocument<UsageRecordAttributes>[],
  ) {
    if (Array.isArray(body)) {
      const members = body.map((member, index) => ({
        input: member.attributes,
        itemIdRaw: itemIdOf(member, index),
        clientId: member.id ?? null,
      }));
      const records = await this.usage.createBatch(principal, members);
      return this.jsonApi.batch(this.serializer, records);
    }
    const record = await this.usage.create(
      principal,
      body.attributes,
      itemIdOf(body),
    );
    return this.jsonApi.single(this.serializer, record, principal);
  }
}

/** The member's subscription item (either spelling), required. */
function itemIdOf(
  body: WriteDocument<UsageRecordAttributes>,
  index?: number,
): string {
  const itemId =
    body.relationships['subscription-item'] ??
    body.relationships.subscription_item;
  if (typeof itemId === 'string') return itemId;
  const error = BillingErrors.subscriptionItemRequired();
  throw index === undefined ? error : BillingErrors.inBatch(index, error);
}
