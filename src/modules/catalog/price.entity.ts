import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';

export type PriceCategory =
  'one_time' | 'subscription' | 'lead_magnet' | 'pwyw';
export type PriceScheme = 'standard' | 'package' | 'graduated' | 'volume';
export type UsageAggregation =
  'sum' | 'last_during_period' | 'last_ever' | 'max';
export type IntervalUnit = 'day' | 'week' | 'month' | 'year';
export type TaxCode = 'eservice' | 'ebook' | 'saas';

export interface PriceTier {
  /** The last unit this tier covers; "inf" for the open-ended last tier. */
  last_unit: number | 'inf';
  unit_price: number;
  unit_price_decimal: string | null;
  fixed_fee: number;
}

/** Immutable: a price change is a new row, and the variant's current price is its newest. */
@Entity('prices')
export class Price {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'store_id' })
  storeId: number;

  @Column({ name: 'variant_id' })
  variantId: number;

  @Column({ name: 'test_mode' })
  testMode: boolean;

  @Column({ type: 'text' })
  category: PriceCategory;

  @Column({ type: 'text' })
  scheme: PriceScheme;

  /** Set only on usage-based subscription prices. */
  @Column({ name: 'usage_aggregation', type: 'text', nullable: true })
  usageAggregation: UsageAggregation | null;

  /** Cents. */
  @Column({ name: 'unit_price', type: 'integer', nullable: true })
  unitPrice: number | null;

  /** Fractional cents as a decimal string, for usage-based prices. */
  @Column({ name: 'unit_price_decimal', type: 'text', nullable: true })
  unitPriceDecimal: string | null;

  @Column({ name: 'setup_fee_enabled', type: 'boolean', nullable: true })
  setupFeeEnabled: boolean | null;

  @Column({ name: 'setup_fee', type: 'integer', nullable: true })
  setupFee: number | null;

  @Column({ name: 'package_size', type: 'integer' })
  packageSize: number;

  @Column({ type: 'jsonb', nullable: true })
  tiers: PriceTier[] | null;

  @Column({ name: 'renewal_interval_unit', type: 'text', nullable: true })
  renewalIntervalUnit: IntervalUnit | null;

  @Column({
    name: 'renewal_interval_quantity',
    type: 'integer',
    nullable: true,
  })
  renewalIntervalQuantity: number | null;

  @Column({ name: 'trial_interval_unit', type: 'text', nullable: true })
  trialIntervalUnit: IntervalUnit | null;

  @Column({ name: 'trial_interval_quantity', type: 'integer', nullable: true })
  trialIntervalQuantity: number | null;

  @Column({ name: 'min_price', type: 'integer', nullable: true })
  minPrice: number | null;

  @Column({ name: 'suggested_price', type: 'integer', nullable: true })
  suggestedPrice: number | null;

  @Column({ name: 'tax_code', type: 'text' })
  taxCode: TaxCode;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
