import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { AppError } from '../../common/app-error';
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
  async one(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: RawQuery,
  ) {
    const include = this.jsonApi.parseSingleInclude(this.serializer, query);
    const delivery = await this.serializer.findOne(principal, id);
    if (!delivery) throw AppError.notFound();
    return this.jsonApi.single(this.serializer, delivery, principal, include);
  }

  @Post(':id/resend')
  @HttpCode(202)
  async resend(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
  ) {
    await this.deliveries.resend(principal, id);
    const delivery = await this.serializer.findOne(principal, id);
    if (!delivery) throw AppError.notFound();
    return this.jsonApi.single(this.serializer, delivery, principal);
  }
}
