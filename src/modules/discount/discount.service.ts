import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { parseIntegerId } from '../../common/ids';
import { Principal } from '../../common/principal';
import { parseTimestamp } from '../../common/timestamps';
import type { WriteDocument } from '../../common/write-document';
import { Transactions } from '../../database/transactions';
import {
  discountAmount,
  discountRefusal,
  normalizeCode,
} from './discount-rules';
import { CatalogService } from '../catalog/catalog.service';
import { DiscountRedemption } from './discount-redemption.entity';
import { DiscountView } from './discount.entity';
import { CreateDiscountAttributes } from './discount.dto';
import { DiscountRepository } from './discount.repository';
import { DiscountErrors, DiscountRefusals } from './discount.errors';

const UNIQUE_VIOLATION = '23505';

/** A discount that applies to a purchase, and how many cents it takes off. */
export interface AppliedDiscount {
  discount: DiscountView;
  amount: number;
}

export interface DiscountUse {
  storeId: number;
  testMode: boolean;
  code: string;
  variantId: number;
  subtotal: number;
  now: Date;
}

function timestamp(name: string, value: string | null | undefined) {
  if (value === undefined || value === null) return null;
  const parsed = parseTimestamp(value);
  if (!parsed) throw DiscountErrors.invalidTimestamp(name);
  return parsed;
}

@Injectable()
export class DiscountService {
  constructor(
    private readonly discounts: DiscountRepository,
    private readonly catalog: CatalogService,
    private readonly transactions: Transactions,
    private readonly clock: Clock,
  ) {}

  async create(
    principal: Principal,
    document: WriteDocument<CreateDiscountAttributes>,
  ): Promise<DiscountView> {
    const input = document.attributes;
    const storeId = parseIntegerId(String(document.relationships.store));
    if (
      storeId === null ||
      !(await this.discounts.storeOwned(principal, storeId))
    )
      throw DiscountErrors.storeNotFound();
    if (
      input.test_mode !== undefined &&
      input.test_mode !== principal.testMode
    ) {
      throw DiscountErrors.testModeMismatch(
        `A ${principal.testMode ? 'test' : 'live'}-mode API key creates ${principal.testMode ? 'test' : 'live'}-mode discounts only.`,
      );
    }
    if (input.amount_type === 'percent' && input.amount > 100)
      throw DiscountErrors.percentOver100();
    const limitedRedemptions = input.is_limited_redemptions ?? false;
    const maxRedemptions = input.max_redemptions ?? 0;
    if (limitedRedemptions && maxRedemptions < 1)
      throw DiscountErrors.maxRedemptionsRequired();
    const startsAt = timestamp('starts_at', input.starts_at);
    const expiresAt = timestamp('expires_at', input.expires_at);
    if (startsAt && expiresAt && expiresAt <= startsAt)
      throw DiscountErrors.expiresBeforeStart();
    // Variants count only when the discount is limited to products (as upstream).
    const limitedToProducts = input.is_limited_to_products ?? false;
    const requested = limitedToProducts
      ? ((document.relationships.variants as string[] | undefined) ?? [])
      : [];
    if (limitedToProducts && requested.length === 0)
      throw DiscountErrors.variantsRequired();
    const variantIds = [
      ...new Set(requested.map((id) => parseIntegerId(id) ?? -1)),
    ];
    const scope = { testMode: principal.testMode, storeId };
    for (const id of variantIds) {
      if (id < 0 || !(await this.catalog.findVariant(scope, id)))
        throw DiscountErrors.variantNotFound();
    }

    const now = this.clock.now();
    const duplicate = () => DiscountErrors.codeTaken(input.code);
    try {
      return await this.transactions.run(async (manager) => {
        if (
          await this.discounts.codeTaken(
            manager,
            storeId,
            principal.testMode,
            input.code,
          )
        )
          throw duplicate();
        return this.discounts.insert(
          manager,
          {
            storeId,
            testMode: principal.testMode,
            name: input.name.trim(),
            code: input.code,
            amount: input.amount,
            amountType: input.amount_type,
            isLimitedToProducts: limitedToProducts,
            isLimitedRedemptions: limitedRedemptions,
            maxRedemptions,
            redemptionsCount: 0,
            startsAt,
            expiresAt,
            duration: input.duration ?? 'once',
            durationInMonths: input.duration_in_months ?? 1,
            status: 'published',
            deletedAt: null,
            createdAt: now,
            updatedAt: now,
          },
          variantIds,
        );
      });
    } catch (error) {
      // Two creations racing for one code: the partial unique index decides.
      if ((error as { code?: string }).code === UNIQUE_VIOLATION)
        throw duplicate();
      throw error;
    }
  }

  async delete(principal: Principal, id: number): Promise<void> {
    const [discount] = await this.discounts.findVisible(principal, [id]);
    if (!discount) throw AppError.notFound();
    await this.discounts.softDelete(discount.id, this.clock.now());
  }

  /**
   * Checks a code for a purchase. With a manager the discount row is locked
   * FOR UPDATE until the purchase commits, so the redemption limit holds
   * however many purchases race for the last uses.
   */
  async apply(
    use: DiscountUse,
    manager?: EntityManager,
  ): Promise<AppliedDiscount> {
    const code = normalizeCode(use.code);
    const discount = await this.discounts.findByCode(
      manager ?? this.discounts.manager,
      use.storeId,
      use.testMode,
      code,
      manager !== undefined,
    );
    if (!discount) throw DiscountErrors.refused(DiscountRefusals.invalid(code));
    const refusal = discountRefusal(discount, use.now, use.variantId);
    if (refusal) throw DiscountErrors.refused(refusal);
    return { discount, amount: discountAmount(discount, use.subtotal) };
  }

  /** The discount an order redeemed at its purchase, as it was applied. */
  redeemedBy(
    manager: EntityManager,
    orderId: number,
  ): Promise<AppliedDiscount | null> {
    return this.discounts.redeemedBy(manager, orderId);
  }

  /** An order whose payment failed gives back the use it reserved. */
  release(manager: EntityManager, orderId: number): Promise<void> {
    return this.discounts.deleteRedemptions(manager, orderId);
  }

  /** Records the use of an applied discount by an order (in the purchase transaction; `release` undoes it). */
  redeem(
    manager: EntityManager,
    applied: AppliedDiscount,
    order: { id: number; storeId: number; testMode: boolean },
    now: Date,
  ): Promise<DiscountRedemption> {
    const { discount } = applied;
    return this.discounts.recordRedemption(manager, discount, {
      discountId: discount.id,
      orderId: order.id,
      storeId: order.storeId,
      testMode: order.testMode,
      discountName: discount.name,
      discountCode: discount.code,
      discountAmount: discount.amount,
      discountAmountType: discount.amountType,
      amount: applied.amount,
      createdAt: now,
      updatedAt: now,
    });
  }
}
