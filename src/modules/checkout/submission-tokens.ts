import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { CheckoutErrors } from './checkout.errors';

const DOMAIN = 'zest:checkout-submission:v1\n';
const TOKEN =
  /^([0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12})\.([0-9a-f]{64})$/;

/**
 * Each rendering of a Stripe checkout page carries a fresh submission
 * token: the identifier its order will have, signed with APP_KEY. Every
 * submit of that page (a double click, a retry, a reload that posts again)
 * names the same order, so it is written once; a token cannot be forged
 * to name another order.
 */
@Injectable()
export class SubmissionTokens {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  issue(): string {
    const identifier = randomUUID();
    return `${identifier}.${this.mac(identifier)}`;
  }

  /** The order identifier a token names; 422 for anything else. */
  identifierOf(token: unknown): string {
    const match = typeof token === 'string' ? TOKEN.exec(token) : null;
    if (
      !match ||
      !timingSafeEqual(
        Buffer.from(match[2], 'hex'),
        Buffer.from(this.mac(match[1]), 'hex'),
      )
    )
      throw CheckoutErrors.submissionInvalid();
    return match[1];
  }

  private mac(identifier: string): string {
    return createHmac('sha256', this.config.appKey)
      .update(DOMAIN + identifier)
      .digest('hex');
  }
}
