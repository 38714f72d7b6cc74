import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity('order_items')
export class OrderItem {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'order_id' })
  orderId: number;

  @Column({ name: 'store_id' })
  storeId: number;

  @Column({ name: 'product_id' })
  productId: number;

  @Column({ name: 'variant_id' })
  variantId: number;

  @Column({ name: 'price_id' })
  priceId: number;

  @Column({ name: 'test_mode' })
  testMode: boolean;

  @Column({ name: 'product_name' })
  productName: string;

  @Column({ name: 'variant_name' })
  variantName: string;

  /** Unit price in cents of the order's currency. */
  @Column()
  price: number;

  @Column()
  quantity: number;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
