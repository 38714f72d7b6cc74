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
import { parseIntegerId } from '../../common/ids';
import type { RawQuery } from '../../common/list-query';
import type { Principal } from '../../common/principal';
import type { WriteDocument } from '../../common/write-document';
import { CurrentPrincipal } from '../../http/auth/principal';
import { JsonApi } from '../../http/json-api/json-api.service';
import { JsonApiBody } from '../../http/json-api/write-document';
import {
  CREATE_WEBHOOK,
  CreateWebhookAttributes,
  UPDATE_WEBHOOK,
  UpdateWebhookAttributes,
} from './webhook.dto';
import { WebhookSerializer } from './webhook.serializer';
import { WebhookService } from './webhook.service';
import { WebhookDeliverySerializer } from './webhook-delivery.serializer';

@Controller('v1/webhooks')
export class WebhookController {
  constructor(
    private readonly webhooks: WebhookService,
    private readonly serializer: WebhookSerializer,
    private readonly deliveries: WebhookDeliverySerializer,
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
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: RawQuery,
  ) {
    const listQuery = this.jsonApi.parseList(this.serializer, query);
    const page = await this.webhooks.findPage(principal, listQuery);
    return this.jsonApi.list(this.serializer, page, listQuery, principal);
  }

  @Get(':id')
  async one(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: RawQuery,
  ) {
    const include = this.jsonApi.parseSingleInclude(this.serializer, query);
    const webhook = await this.serializer.findOne(principal, id);
    if (!webhook) throw AppError.notFound();
    return this.jsonApi.single(this.serializer, webhook, principal, include);
  }

  @Patch(':id')
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @JsonApiBody(UPDATE_WEBHOOK) body: WriteDocument<UpdateWebhookAttributes>,
  ) {
    const webhookId = parseIntegerId(id);
    if (webhookId === null) throw AppError.notFound();
    const webhook = await this.webhooks.update(
      principal,
      webhookId,
      body.attributes,
    );
    return this.jsonApi.single(this.serializer, webhook, principal);
  }

  @Delete(':id')
  @HttpCode(204)
  async remove(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
  ): Promise<void> {
    const webhookId = parseIntegerId(id);
    if (webhookId === null) throw AppError.notFound();
    await this.webhooks.delete(principal, webhookId);
  }

  /** Beyond the spec: the delivery log of one webhook, newest first. */
  @Get(':id/deliveries')
  async deliveryLog(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: RawQuery,
  ) {
    const listQuery = this.jsonApi.parseList(this.deliveries, query);
    const webhook = await this.serializer.findOne(principal, id);
    if (!webhook) throw AppError.notFound();
    listQuery.filters.webhook_id = webhook.id;
    const page = await this.deliveries.findPage(principal, listQuery);
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
