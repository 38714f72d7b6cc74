import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A store's Stripe account in one mode; every key sealed (SealedBox), never rendered or logged. */
@Entity('stripe_credentials')
export class StripeCredentials {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'store_id' })
  storeId: number;

  @Column({ name: 'test_mode' })
  testMode: boolean;

  @Column({ name: 'secret_key_sealed', type: 'text' })
  secretKeySealed: string;

  @Column({ name: 'publishable_key_sealed', type: 'text' })
  publishableKeySealed: string;

  @Column({ name: 'webhook_secret_sealed', type: 'text' })
  webhookSecretSealed: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
