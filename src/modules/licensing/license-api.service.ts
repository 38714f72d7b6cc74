import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { formatTimestamp } from '../../common/timestamps';
import { Transactions } from '../../database/transactions';
import { LicenseApiError, LicenseApiMessages } from './license-api.errors';
import { LicenseKeyInstance } from './license-key-instance.entity';
import { LicenseKey } from './license-key.entity';
import { LicenseKeyRepository } from './license-key.repository';
import { licenseKeyStatus } from './license-key.state';

/** The three operations and the flag each answer carries. */
export type LicenseOperation = 'activate' | 'validate' | 'deactivate';

export const OUTCOME_FLAG: Record<LicenseOperation, string> = {
  activate: 'activated',
  validate: 'valid',
  deactivate: 'deactivated',
};

export interface ActivateInput {
  licenseKey: string;
  instanceName: string;
}

export interface ValidateInput {
  licenseKey: string;
  instanceId?: string;
}

export interface DeactivateInput {
  licenseKey: string;
  instanceId: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The public License API used by end-user applications: no API key, any
 * store and mode; the key itself is the credential. Answers are plain JSON
 * in the reference's shape; every refusal is a LicenseApiError.
 */
@Injectable()
export class LicenseApiService {
  constructor(
    private readonly repository: LicenseKeyRepository,
    private readonly transactions: Transactions,
    private readonly clock: Clock,
  ) {}

  /**
   * Adds an instance under the key's row lock, so parallel activations are
   * counted one after another and never pass the limit.
   */
  activate(input: ActivateInput) {
    return this.transactions.run(async (manager) => {
      const key = await this.repository.lockByKey(manager, input.licenseKey);
      if (!key) throw notFound('activate');
      const now = this.clock.now();
      const refusal = this.refusal(key, now);
      const limitReached =
        key.activationLimit !== null &&
        key.instancesCount >= key.activationLimit;
      if (refusal || limitReached) {
        throw new LicenseApiError(400, {
          activated: false,
          error: refusal ?? LicenseApiMessages.limitReached,
          license_key: this.keyObject(key, now),
          meta: this.meta(key),
        });
      }
      const instance = await this.repository.addInstance(manager, key, {
        identifier: randomUUID(),
        name: input.instanceName,
      });
      return {
        activated: true,
        error: null,
        license_key: this.keyObject(key, now),
        instance: this.instanceObject(instance),
        meta: this.meta(key),
      };
    });
  }

  async validate(input: ValidateInput) {
    const key = await this.repository.findByKey(input.licenseKey);
    if (!key) throw notFound('validate');
    const now = this.clock.now();
    let instance: LicenseKeyInstance | null = null;
    if (input.instanceId !== undefined) {
      instance = await this.findInstance(key, input.instanceId);
      if (!instance) {
        throw new LicenseApiError(404, {
          valid: false,
          error: LicenseApiMessages.instanceNotFound,
          license_key: this.keyObject(key, now),
          instance: null,
          meta: this.meta(key),
        });
      }
    }
    const refusal = this.refusal(key, now);
    if (refusal) {
      throw new LicenseApiError(400, {
        valid: false,
        error: refusal,
        license_key: this.keyObject(key, now),
        instance: null,
        meta: this.meta(key),
      });
    }
    return {
      valid: true,
      error: null,
      license_key: this.keyObject(key, now),
      instance: instance ? this.instanceObject(instance) : null,
      meta: this.meta(key),
    };
  }

  deactivate(input: DeactivateInput) {
    return this.transactions.run(async (manager) => {
      const key = await this.repository.lockByKey(manager, input.licenseKey);
      if (!key) throw notFound('deactivate');
      const now = this.clock.now();
      const instance = UUID.test(input.instanceId)
        ? await this.repository.findInstanceOfKey(
            key.id,
            input.instanceId.toLowerCase(),
            manager,
          )
        : null;
      if (!instance) {
        throw new LicenseApiError(404, {
          deactivated: false,
          error: LicenseApiMessages.instanceNotFound,
          license_key: this.keyObject(key, now),
          meta: this.meta(key),
        });
      }
      const refusal = this.refusal(key, now);
      if (refusal) {
        throw new LicenseApiError(400, {
          deactivated: false,
          error: refusal,
          license_key: this.keyObject(key, now),
          meta: this.meta(key),
        });
      }
      await this.repository.removeInstance(manager, key, instance);
      return {
        deactivated: true,
        error: null,
        license_key: this.keyObject(key, now),
        meta: this.meta(key),
      };
    });
  }

  private findInstance(key: LicenseKey, instanceId: string) {
    if (!UUID.test(instanceId)) return Promise.resolve(null);
    return this.repository.findInstanceOfKey(key.id, instanceId.toLowerCase());
  }

  /** Why a key cannot be used now, or null when it can. */
  private refusal(key: LicenseKey, now: Date): string | null {
    const status = licenseKeyStatus(key, now);
    if (status === 'disabled') return LicenseApiMessages.disabled;
    if (status === 'expired') return LicenseApiMessages.expired;
    return null;
  }

  /** The `license_key` object: 8 keys, as the reference lists them. */
  private keyObject(key: LicenseKey, now: Date) {
    return {
      id: key.id,
      status: licenseKeyStatus(key, now),
      key: key.key,
      activation_limit: key.activationLimit,
      activation_usage: key.instancesCount,
      created_at: formatTimestamp(key.createdAt),
      expires_at: formatTimestamp(key.expiresAt),
      test_mode: key.testMode,
    };
  }

  private instanceObject(instance: LicenseKeyInstance) {
    return {
      id: instance.identifier,
      name: instance.name,
      created_at: formatTimestamp(instance.createdAt),
    };
  }

  private meta(key: LicenseKey) {
    return {
      store_id: key.storeId,
      order_id: key.orderId,
      order_item_id: key.orderItemId,
      product_id: key.productId,
      product_name: key.productName,
      variant_id: key.variantId,
      variant_name: key.variantName,
      customer_id: key.customerId,
      customer_name: key.userName,
      customer_email: key.userEmail,
    };
  }
}

function notFound(operation: LicenseOperation) {
  return new LicenseApiError(404, {
    [OUTCOME_FLAG[operation]]: false,
    error: LicenseApiMessages.keyNotFound,
  });
}
