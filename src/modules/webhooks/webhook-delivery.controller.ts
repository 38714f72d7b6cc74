import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import type { RawQuery } from '../../common/list-query';
import type { Principal } from '../../common/principal';
import { CurrentPrincipal } from '../../http/auth/principal';
import { JsonApi } from '../../http/json-api/json-api.service';
import { WebhookDeliverySerializer } from './webhook-delivery.serializer';
import { WebhookDeliveryService } from './webhook-delivery.service';

/** Beyond the spec: one delivery, and sending it again. */
@Controller('v1/webhook-deliveries')
export class WebhookDeliveryController {
  constructor(
    private readonly serializer: WebhookDeliverySerializer,
    private readonly deliveries: WebhookDeliveryService,
    private readonly jsonApi: JsonApi,
  ) {}

  @Get(':id')
  one(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: RawQuery,
  ) {
    return this.jsonApi.readOne(this.serializer, principal, id, query);
  }

  @Post(':id/resend')
  @HttpCode(202)
  async resend(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
  ) {
    await this.deliveries.resend(principal, id);
    return this.jsonApi.readOne(this.serializer, principal, id, {});
  }
}
