import {
  Body,
  Controller,
  Headers,
  HttpCode,
  Param,
  Post,
} from '@nestjs/common';
import { Public } from '../../http/auth/public.decorator';
import { IntegerIdPipe } from '../../http/json-api/integer-id.pipe';
import { NotJsonApi } from '../../http/json-api/not-json-api.decorator';
import { RateLimit } from '../../http/rate-limit/rate-limit.decorator';
import { RawJsonBody } from '../../http/transport/body-parsers';
import { StripeEventErrors } from './stripe-events.errors';
import { StripeInbox } from './stripe-inbox.service';

/** A store id that cannot be one is the endpoint's own 404. */
const STORE_ID = new IntegerIdPipe(StripeEventErrors.endpointUnknown);

/**
 * `POST /webhooks/stripe/:storeId`: where a store's Stripe account sends
 * its events (one endpoint per store, in Stripe's dashboard, for test and
 * live mode alike). Stripe authenticates with `Stripe-Signature`, not an
 * API key; counted per client IP like other public pages. Answers 200 as
 * soon as the event is stored; the worker processes it.
 */
@Controller('webhooks/stripe')
@Public()
@RateLimit('page')
@NotJsonApi()
export class StripeWebhookController {
  constructor(private readonly inbox: StripeInbox) {}

  @Post(':storeId')
  @HttpCode(200)
  @RawJsonBody()
  async receive(
    @Param('storeId', STORE_ID) storeId: number,
    @Body() body: unknown,
    @Headers('stripe-signature') signature: string | undefined,
  ): Promise<{ received: true; duplicate: boolean }> {
    const { duplicate } = await this.inbox.receive(storeId, body, signature);
    return { received: true, duplicate };
  }
}
