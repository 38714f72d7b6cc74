import {
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Patch,
  Post,
  Query,
} from '@nestjs/common';
import { AppError } from '../../common/app-error';
import { pageOrNothing, type RawQuery } from '../../common/list-query';
import type { Principal } from '../../common/principal';
import type { WriteDocument } from '../../common/write-document';
import { CurrentPrincipal } from '../../http/auth/principal';
import { IntegerIdPipe } from '../../http/json-api/integer-id.pipe';
import { JsonApi } from '../../http/json-api/json-api.service';
import { JsonApiBody } from '../../http/json-api/write-document';
import {
  CREATE_WEBHOOK,
  CreateWebhookAttributes,
  UPDATE_WEBHOOK,
  UpdateWebhookAttributes,
} from './webhook.dto';
import { WebhookDeliveryReader, WebhookReader } from './webhook.reader';
import { WebhookSerializer } from './webhook.serializer';
import { WebhookService } from './webhook.service';
import { WebhookDeliverySerializer } from './webhook-delivery.serializer';

@Controller('v1/webhooks')
export class WebhookController {
  constructor(
    private readonly webhooks: WebhookService,
    private readonly serializer: WebhookSerializer,
    private readonly deliveries: WebhookDeliverySerializer,
    private readonly webhookReader: WebhookReader,
    private readonly deliveryReader: WebhookDeliveryReader,
    private readonly jsonApi: JsonApi,
  ) {}

  @Post()
  async create(
    @CurrentPrincipal() principal: Principal,
    @JsonApiBody(CREATE_WEBHOOK) body: WriteDocument<CreateWebhookAttributes>,
  ) {
    const webhook = await this.webhooks.create(
      principal,
      body.relationships.store as string,
      body.attributes,
    );
    return this.jsonApi.single(this.serializer, webhook, principal);
  }

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

  @Patch(':id')
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('id', IntegerIdPipe) id: number,
    @JsonApiBody(UPDATE_WEBHOOK) body: WriteDocument<UpdateWebhookAttributes>,
  ) {
    const webhook = await this.webhooks.update(principal, id, body.attributes);
    return this.jsonApi.single(this.serializer, webhook, principal);
  }

  @Delete(':id')
  @HttpCode(204)
  async remove(
    @CurrentPrincipal() principal: Principal,
    @Param('id', IntegerIdPipe) id: number,
  ): Promise<void> {
    await this.webhooks.delete(principal, id);
  }

  /** Beyond the spec: the delivery log of one webhook, newest first. */
  @Get(':id/deliveries')
  async deliveryLog(
    @CurrentPrincipal() principal: Principal,
    @Param('id', IntegerIdPipe) id: number,
    @Query() query: RawQuery,
  ) {
    const listQuery = this.jsonApi.parseList(this.deliveries, query);
    const [webhook] = await this.webhookReader.findMany(principal, [id]);
    if (!webhook) throw AppError.notFound();
    listQuery.filters.webhook_id = webhook.id;
    const page = await pageOrNothing(listQuery, () =>
      this.deliveryReader.findPage(principal, listQuery),
    );
    delete listQuery.filters.webhook_id;
    return this.jsonApi.list(
      this.deliveries,
      page,
      listQuery,
      principal,
      `webhooks/${webhook.id}/deliveries`,
    );
  }
}
