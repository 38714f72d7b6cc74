import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import type { UsageAction } from './usage-aggregation';

@Entity('usage_records')
export class UsageRecord {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'subscription_item_id' })
  subscriptionItemId: number;

  @Column({ name: 'store_id' })
  storeId: number;

  @Column({ name: 'test_mode' })
  testMode: boolean;

  @Column({ type: 'integer' })
  quantity: number;

  @Column({ type: 'text' })
  action: UsageAction;

  /** The client's id for the record (batch posts), unique per store and mode. */
  @Column({ name: 'client_id', type: 'text', nullable: true })
  clientId: string | null;

  /** The billing period the record counts towards. */
  @Column({ name: 'period_start', type: 'timestamptz' })
  periodStart: Date;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
