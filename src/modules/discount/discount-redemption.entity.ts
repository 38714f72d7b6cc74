import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { DiscountAmountType } from './discount.entity';

/** One use of a discount by an order; copies the discount's terms as they were. */
@Entity('discount_redemptions')
export class DiscountRedemption {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'discount_id' })
  discountId: number;

  @Column({ name: 'order_id' })
  orderId: number;

  @Column({ name: 'store_id' })
  storeId: number;

  @Column({ name: 'discount_name' })
  discountName: string;

  @Column({ name: 'discount_code' })
  discountCode: string;

  @Column({ name: 'discount_amount' })
  discountAmount: number;

  @Column({ name: 'discount_amount_type', type: 'text' })
  discountAmountType: DiscountAmountType;

  /** Cents actually deducted from the order. */
  @Column()
  amount: number;

  @Column({ name: 'test_mode' })
  testMode: boolean;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
