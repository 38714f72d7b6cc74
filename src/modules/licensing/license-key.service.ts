import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { FilterValue, ListQuery, Page } from '../../common/list-query';
import { Principal } from '../../common/principal';
import { parseTimestamp } from '../../common/timestamps';
import { Transactions } from '../../database/transactions';
import { Outbox } from '../webhooks/outbox';
import { LicenseKeyInstance } from './license-key-instance.entity';
import { LicenseKey } from './license-key.entity';
import { licenseKeyRenderer } from './license-key.renderer';
import { LicenseKeyRepository, Scope } from './license-key.repository';
import {
  licenseExpiry,
  LicenseKeyStatus,
  licenseKeyStatus,
  LicenseLengthUnit,
} from './license-key.state';
import { LicenseKeyErrors } from './license-key.errors';

/** A license key as read: the entity plus its status at the time of reading. */
export type LicenseKeyView = LicenseKey & { status: LicenseKeyStatus };

/** What a purchase tells licensing about one order item. */
export interface IssueLicenseKeys {
  storeId: number;
  testMode: boolean;
  customerId: number;
  orderId: number;
  orderItemId: number;
  productId: number;
  productName: string;
  variantId: number;
  variantName: string;
  /** The buyer's name and e-mail at purchase (`user_name`, `user_email`). */
  userName: string;
  userEmail: string;
  /** One key per purchased unit. */
  quantity: number;
  /** The variant's license settings. */
  license: {
    activationLimit: number;
    isLimitUnlimited: boolean;
    lengthValue: number;
    lengthUnit: LicenseLengthUnit;
    isLengthUnlimited: boolean;
  };
  /**
   * A subscription purchase: the keys follow the subscription's end (null
   * while it runs) through `followSubscription`, not the variant's length.
   */
  subscription: boolean;
  now: Date;
  /** The checkout's `checkout_data.custom`, repeated on `license_key_created`. */
  customData?: Record<string, unknown> | null;
}

export interface LicenseKeyChanges {
  activationLimit?: number | null;
  /** An ISO 8601 timestamp, or null for perpetual. */
  expiresAt?: string | null;
  disabled?: boolean;
}

const scopeOf = (principal: Principal): Scope => ({
  userId: principal.userId,
  testMode: principal.testMode,
});

@Injectable()
export class LicenseKeyService {
  constructor(
    private readonly repository: LicenseKeyRepository,
    private readonly transactions: Transactions,
    private readonly clock: Clock,
    private readonly outbox: Outbox,
  ) {}

  view(key: LicenseKey, now: Date = this.clock.now()): LicenseKeyView {
    // A plain view object is what the serializers read; no entity methods are needed.
    // oxlint-disable-next-line typescript/no-misused-spread
    return { ...key, status: licenseKeyStatus(key, now) };
  }

  /**
   * Issues the keys of one purchased order item inside the purchase's
   * transaction: one random UUID key per unit.
   */
  async issue(
    manager: EntityManager,
    input: IssueLicenseKeys,
  ): Promise<LicenseKeyView[]> {
    if (!Number.isInteger(input.quantity) || input.quantity < 1) {
      throw new Error(`Cannot issue ${input.quantity} license keys`);
    }
    const { license } = input;
    const expiresAt =
      input.subscription || license.isLengthUnlimited
        ? null
        : licenseExpiry(input.now, license.lengthValue, license.lengthUnit);
    const rows: Partial<LicenseKey>[] = [];
    for (let unit = 0; unit < input.quantity; unit++) {
      rows.push({
        storeId: input.storeId,
        customerId: input.customerId,
        orderId: input.orderId,
        orderItemId: input.orderItemId,
        productId: input.productId,
        variantId: input.variantId,
        productName: input.productName,
        variantName: input.variantName,
        userName: input.userName,
        userEmail: input.userEmail,
        key: randomUUID(),
        activationLimit: license.isLimitUnlimited
          ? null
          : license.activationLimit,
        instancesCount: 0,
        disabled: false,
        expiresAt,
        testMode: input.testMode,
        createdAt: input.now,
        updatedAt: input.now,
      });
    }
    const keys = (await this.repository.insertKeys(manager, rows)).map((key) =>
      this.view(key, input.now),
    );
    for (const key of keys) {
      await this.outbox.record(manager, {
        name: 'license_key_created',
        storeId: key.storeId,
        testMode: key.testMode,
        resource: licenseKeyRenderer,
        record: key,
        customData: input.customData,
      });
    }
    return keys;
  }

  /**
   * Billing calls this in its transaction whenever a subscription's end
   * changes: the keys of its order item expire with it (null = runs on).
   */
  async followSubscription(
    manager: EntityManager,
    orderItemId: number,
    endsAt: Date | null,
  ): Promise<LicenseKeyView[]> {
    const keys = await this.repository.lockByOrderItem(manager, orderItemId);
    const changed: LicenseKeyView[] = [];
    for (const key of keys) {
      if ((key.expiresAt?.getTime() ?? null) === (endsAt?.getTime() ?? null))
        continue;
      key.expiresAt = endsAt;
      const view = this.view(await this.repository.saveKey(manager, key));
      await this.recordUpdated(manager, view);
      changed.push(view);
    }
    return changed;
  }

  async findOne(
    principal: Principal,
    id: number,
  ): Promise<LicenseKeyView | null> {
    const [key] = await this.findMany(principal, [id]);
    return key ?? null;
  }

  async findMany(
    principal: Principal,
    ids: number[],
  ): Promise<LicenseKeyView[]> {
    const now = this.clock.now();
    const keys = await this.repository.findKeys(scopeOf(principal), ids);
    return keys.map((key) => this.view(key, now));
  }

  async findPage(
    principal: Principal,
    query: ListQuery,
  ): Promise<Page<LicenseKeyView>> {
    const now = this.clock.now();
    const page = await this.repository.findKeysPage(
      scopeOf(principal),
      query,
      now,
    );
    return {
      records: page.records.map((key) => this.view(key, now)),
      total: page.total,
    };
  }

  async findByFilter(
    principal: Principal,
    filter: string,
    values: FilterValue[],
  ): Promise<LicenseKeyView[]> {
    const now = this.clock.now();
    const keys = await this.repository.findKeysByFilter(
      scopeOf(principal),
      filter,
      values,
    );
    return keys.map((key) => this.view(key, now));
  }

  /** PATCH /v1/license-keys/:id. */
  async update(
    principal: Principal,
    id: number,
    changes: LicenseKeyChanges,
  ): Promise<LicenseKeyView> {
    let expiresAt: Date | null | undefined;
    if (changes.expiresAt !== undefined) {
      expiresAt =
        changes.expiresAt === null ? null : parseTimestamp(changes.expiresAt);
      if (expiresAt === null && changes.expiresAt !== null) {
        throw LicenseKeyErrors.invalidExpiry();
      }
    }
    return this.transactions.run(async (manager) => {
      const key = await this.repository.lockScoped(
        manager,
        scopeOf(principal),
        id,
      );
      if (!key) throw AppError.notFound();
      if (changes.activationLimit !== undefined)
        key.activationLimit = changes.activationLimit;
      if (expiresAt !== undefined) key.expiresAt = expiresAt;
      if (changes.disabled !== undefined) key.disabled = changes.disabled;
      key.updatedAt = this.clock.now();
      const view = this.view(await this.repository.saveKey(manager, key));
      await this.recordUpdated(manager, view);
      return view;
    });
  }

  private recordUpdated(manager: EntityManager, key: LicenseKeyView) {
    return this.outbox.record(manager, {
      name: 'license_key_updated',
      storeId: key.storeId,
      testMode: key.testMode,
      resource: licenseKeyRenderer,
      record: key,
    });
  }

  findInstance(
    principal: Principal,
    id: number,
  ): Promise<LicenseKeyInstance | null> {
    return this.findInstances(principal, [id]).then(([one]) => one ?? null);
  }

  findInstances(
    principal: Principal,
    ids: number[],
  ): Promise<LicenseKeyInstance[]> {
    return this.repository.findInstances(scopeOf(principal), ids);
  }

  findInstancesPage(
    principal: Principal,
    query: ListQuery,
  ): Promise<Page<LicenseKeyInstance>> {
    return this.repository.findInstancesPage(scopeOf(principal), query);
  }

  findInstancesByFilter(
    principal: Principal,
    filter: string,
    values: FilterValue[],
  ): Promise<LicenseKeyInstance[]> {
    return this.repository.findInstancesByFilter(
      scopeOf(principal),
      filter,
      values,
    );
  }
}
