import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** Marketing statuses (spec section 3); only `archived` may be set over the API. */
export const CUSTOMER_STATUSES = [
  'subscribed',
  'unsubscribed',
  'archived',
  'requires_verification',
  'invalid_email',
  'bounced',
] as const;

export type CustomerStatus = (typeof CUSTOMER_STATUSES)[number];

@Entity('customers')
export class Customer {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'store_id' })
  storeId: number;

  @Column({ name: 'test_mode' })
  testMode: boolean;

  @Column()
  name: string;

  @Column()
  email: string;

  @Column({ type: 'text' })
  status: CustomerStatus;

  @Column({ type: 'text', nullable: true })
  city: string | null;

  @Column({ type: 'text', nullable: true })
  region: string | null;

  @Column({ type: 'char', length: 2, nullable: true })
  country: string | null;

  /** Extension: street address, one line or two (a newline between). */
  @Column({ type: 'text', nullable: true })
  address: string | null;

  /** Extension: postal code. */
  @Column({ type: 'text', nullable: true })
  zip: string | null;

  /** Extension: VAT or other tax number, normalized (no spaces, dots, dashes). */
  @Column({ name: 'tax_number', type: 'text', nullable: true })
  taxNumber: string | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
