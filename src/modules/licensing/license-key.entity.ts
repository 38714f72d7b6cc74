import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';

@Entity('license_keys')
export class LicenseKey {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'store_id' })
  storeId: number;

  @Column({ name: 'customer_id' })
  customerId: number;

  @Column({ name: 'order_id' })
  orderId: number;

  @Column({ name: 'order_item_id' })
  orderItemId: number;

  @Column({ name: 'product_id' })
  productId: number;

  @Column({ name: 'variant_id' })
  variantId: number;

  @Column({ name: 'product_name' })
  productName: string;

  @Column({ name: 'variant_name' })
  variantName: string;

  @Column({ name: 'user_name' })
  userName: string;

  @Column({ name: 'user_email' })
  userEmail: string;

  @Column()
  key: string;

  /** Null means unlimited. */
  @Column({ name: 'activation_limit', type: 'integer', nullable: true })
  activationLimit: number | null;

  /** Kept equal to the number of instances: changed only under the key's row lock. */
  @Column({ name: 'instances_count' })
  instancesCount: number;

  @Column()
  disabled: boolean;

  /** Null means perpetual. */
  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt: Date | null;

  @Column({ name: 'test_mode' })
  testMode: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
