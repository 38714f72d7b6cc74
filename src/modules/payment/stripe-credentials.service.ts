import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { SealedBox } from '../../common/sealed-box';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import {
  stripeCredentialInvalid,
  stripeCredentialsProblems,
  stripeKeyWrongMode,
} from './payment.errors';
import { StripeCredentialsRepository } from './stripe-credentials.repository';
import { StripeCustomerRepository } from './stripe-customer.repository';

/** A store's Stripe account in one mode, in clear: only for calling Stripe, never rendered or logged. */
export interface StripeKeys {
  /** `sk_…` (or a restricted `rk_…` key). */
  secretKey: string;
  /** `pk_…`, for Stripe.js on the checkout page. */
  publishableKey: string;
  /** `whsec_…`, to verify `Stripe-Signature` on webhooks from Stripe. */
  webhookSecret: string;
}

/** The three fields as the API and the CLI take them, not yet checked. */
export interface StripeKeysInput {
  secret_key?: unknown;
  publishable_key?: unknown;
  webhook_secret?: unknown;
}

// Stripe's keys are a prefix and base-62 characters; the lengths leave room
// for Stripe to lengthen them.
const KEY = /^(sk|rk|pk)_(test|live)_[0-9A-Za-z]{16,247}$/;
const WEBHOOK_SECRET = /^whsec_[0-9A-Za-z+/=]{16,250}$/;

/**
 * Each store connects its own Stripe account, separately for test and live
 * mode: test keys (`sk_test_…`, `pk_test_…`) only in test mode, live keys
 * only in live mode. Everything is sealed at rest with a key derived from
 * APP_KEY; the API tells only whether a mode is configured.
 */
@Injectable()
export class StripeCredentialsService {
  private readonly box: SealedBox;

  constructor(
    private readonly credentials: StripeCredentialsRepository,
    private readonly customers: StripeCustomerRepository,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.box = new SealedBox(config.appKey, 'zest stripe credentials v1');
  }

  /**
   * The three fields checked for the mode: every problem at once, each with
   * its pointer and code; the values never appear in an error.
   */
  check(testMode: boolean, input: StripeKeysInput): StripeKeys {
    const problems: AppError[] = [];
    const key = (field: keyof StripeKeysInput, kinds: string[]) => {
      const value = input[field];
      const match = typeof value === 'string' ? KEY.exec(value) : null;
      if (!match || !kinds.includes(match[1])) {
        problems.push(
          stripeCredentialInvalid(
            field,
            `The ${field.replace('_', ' ')} must be a Stripe ${kinds.map((k) => `${k}_…`).join(' or ')} key.`,
          ),
        );
        return '';
      }
      if ((match[2] === 'test') !== testMode)
        problems.push(stripeKeyWrongMode(field, testMode));
      return value as string;
    };
    const secretKey = key('secret_key', ['sk', 'rk']);
    const publishableKey = key('publishable_key', ['pk']);
    const webhookSecret = input.webhook_secret;
    if (
      typeof webhookSecret !== 'string' ||
      !WEBHOOK_SECRET.test(webhookSecret)
    ) {
      problems.push(
        stripeCredentialInvalid(
          'webhook_secret',
          'The webhook secret must be the endpoint’s signing secret (whsec_…).',
        ),
      );
    }
    if (problems.length > 0) throw stripeCredentialsProblems(problems);
    return {
      secretKey,
      publishableKey,
      webhookSecret: webhookSecret as string,
    };
  }

  /**
   * Connects (or replaces) the store's Stripe account of a mode, in the
   * caller's transaction. Another account (its publishable key changed: a
   * publishable key belongs to one account, and stays when a secret key is
   * rolled or restricted) forgets the store's links to Stripe Customers of
   * that mode, which live in the old account: each buyer gets a Customer in
   * the new one on their next payment.
   */
  async set(
    manager: EntityManager,
    storeId: number,
    testMode: boolean,
    keys: StripeKeys,
  ): Promise<void> {
    const now = this.clock.now();
    const previous = await this.credentials.find(storeId, testMode, manager);
    if (
      previous &&
      this.openOrNull(previous.publishableKeySealed) !== keys.publishableKey
    )
      await this.customers.forget(manager, storeId, testMode);
    await this.credentials.upsert(manager, {
      storeId,
      testMode,
      secretKeySealed: this.box.seal(keys.secretKey),
      publishableKeySealed: this.box.seal(keys.publishableKey),
      webhookSecretSealed: this.box.seal(keys.webhookSecret),
      createdAt: now,
      updatedAt: now,
    });
  }

  /** Disconnects the store's Stripe account of a mode, and forgets its Stripe Customers. */
  async clear(
    manager: EntityManager,
    storeId: number,
    testMode: boolean,
  ): Promise<void> {
    await this.credentials.delete(manager, storeId, testMode);
    await this.customers.forget(manager, storeId, testMode);
  }

  /** A sealed value, or null when it can no longer be opened (APP_KEY rotated). */
  private openOrNull(sealed: string): string | null {
    try {
      return this.box.open(sealed);
    } catch {
      return null;
    }
  }

  /** The stores among these with Stripe credentials in the mode. */
  configured(storeIds: number[], testMode: boolean): Promise<Set<number>> {
    return this.credentials.configuredStores(storeIds, testMode);
  }

  /** The store's keys of a mode in clear, for calling Stripe; null when not connected. */
  async keysOf(
    storeId: number,
    testMode: boolean,
    manager?: EntityManager,
  ): Promise<StripeKeys | null> {
    const row = await this.credentials.find(storeId, testMode, manager);
    if (!row) return null;
    return {
      secretKey: this.box.open(row.secretKeySealed),
      publishableKey: this.box.open(row.publishableKeySealed),
      webhookSecret: this.box.open(row.webhookSecretSealed),
    };
  }
}
