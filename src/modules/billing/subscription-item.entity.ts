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

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
