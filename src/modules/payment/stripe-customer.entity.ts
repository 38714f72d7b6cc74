import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** The Stripe Customer of a Zest customer in a store's Stripe account of one mode. */
@Entity('stripe_customers')
export class StripeCustomer {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'store_id' })
  storeId: number;

  @Column({ name: 'test_mode' })
  testMode: boolean;

  @Column({ name: 'customer_id' })
  customerId: number;

  @Column({ name: 'stripe_customer_id', type: 'text' })
  stripeCustomerId: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
