import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

export type DiscountAmountType = 'percent' | 'fixed';
export type DiscountDuration = 'once' | 'repeating' | 'forever';
export type DiscountStatus = 'draft' | 'published';

@Entity('discounts')
export class Discount {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'store_id' })
  storeId: number;

  @Column()
  name: string;

  @Column()
  code: string;

  /** Cents for `fixed`, percent points for `percent`. */
  @Column()
  amount: number;

  @Column({ name: 'amount_type', type: 'text' })
  amountType: DiscountAmountType;

  @Column({ name: 'is_limited_to_products' })
  isLimitedToProducts: boolean;

  @Column({ name: 'is_limited_redemptions' })
  isLimitedRedemptions: boolean;

  @Column({ name: 'max_redemptions' })
  maxRedemptions: number;

  /** Kept beside the redemptions so the limit check under the row lock is one read. */
  @Column({ name: 'redemptions_count' })
  redemptionsCount: number;

  @Column({ name: 'starts_at', type: 'timestamptz', nullable: true })
  startsAt: Date | null;

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt: Date | null;

  @Column({ type: 'text' })
  duration: DiscountDuration;

  @Column({ name: 'duration_in_months' })
  durationInMonths: number;

  @Column({ type: 'text' })
  status: DiscountStatus;

  @Column({ name: 'test_mode' })
  testMode: boolean;

  /** Deleted discounts stay for their redemptions' history but are gone from the API. */
  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

/** A discount with the variants it is limited to. */
export type DiscountView = Discount & { variantIds: number[] };
