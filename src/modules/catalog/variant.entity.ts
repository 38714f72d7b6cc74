import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';

export type VariantStatus = 'pending' | 'draft' | 'published';
export type LicenseLengthUnit = 'days' | 'months' | 'years';

export interface VariantLink {
  title: string;
  url: string;
}

@Entity('variants')
export class Variant {
  @PrimaryGeneratedColumn()
  id: number;

  /** Public identifier in `buy_now_url`, so ids cannot be enumerated from checkout links. */
  @Column({ type: 'uuid' })
  uuid: string;

  /** Denormalized from the product: scopes every query without a join. */
  @Column({ name: 'store_id' })
  storeId: number;

  @Column({ name: 'product_id' })
  productId: number;

  @Column({ name: 'test_mode' })
  testMode: boolean;

  @Column()
  name: string;

  @Column()
  slug: string;

  /** HTML. */
  @Column()
  description: string;

  @Column({ type: 'jsonb' })
  links: VariantLink[];

  @Column({ name: 'has_license_keys' })
  hasLicenseKeys: boolean;

  @Column({ name: 'license_activation_limit', type: 'integer' })
  licenseActivationLimit: number;

  @Column({ name: 'is_license_limit_unlimited' })
  isLicenseLimitUnlimited: boolean;

  @Column({ name: 'license_length_value', type: 'integer' })
  licenseLengthValue: number;

  @Column({ name: 'license_length_unit', type: 'text' })
  licenseLengthUnit: LicenseLengthUnit;

  @Column({ name: 'is_license_length_unlimited' })
  isLicenseLengthUnlimited: boolean;

  @Column({ type: 'integer' })
  sort: number;

  @Column({ type: 'text' })
  status: VariantStatus;

  /** The newest price; prices are immutable, a new one replaces it. Null until one is set. */
  @Column({ name: 'current_price_id', type: 'integer', nullable: true })
  currentPriceId: number | null;

  /** Extension: downloads allowed per order item (all files together); null is unlimited. */
  @Column({ name: 'download_limit', type: 'integer', nullable: true })
  downloadLimit: number | null;

  /** Extension: the fewest units one purchase or subscription item may have. */
  @Column({ name: 'min_quantity', type: 'integer' })
  minQuantity: number;

  /** Extension: the most units one purchase or subscription item may have. */
  @Column({ name: 'max_quantity', type: 'integer' })
  maxQuantity: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
