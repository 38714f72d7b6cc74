import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';

@Entity('subscription_items')
export class SubscriptionItem {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'subscription_id' })
  subscriptionId: number;

  @Column({ name: 'store_id' })
  storeId: number;

  @Column({ name: 'test_mode' })
  testMode: boolean;

  @Column({ name: 'price_id' })
  priceId: number;

  /** 0 for usage-based items: their quantity is reported through usage records. */
  @Column({ type: 'integer' })
  quantity: number;

  @Column({ name: 'is_usage_based' })
  isUsageBased: boolean;

  /**
   * The checkout's `custom_price` (cents a unit) the subscription was bought
   * at: renewals charge it instead of the price's terms, as Lemon Squeezy
   * does, until a plan change. Null: the price's own terms.
   */
  @Column({ name: 'custom_unit_price', type: 'integer', nullable: true })
  customUnitPrice: number | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
