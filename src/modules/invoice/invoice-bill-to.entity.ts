import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
} from 'typeorm';

/**
 * Bill-to details given to generate-invoice, stored so that links carry
 * only `token` (see the migration `1764150000000-invoice-bill-to`). Rows are
 * immutable and belong to a store and a mode.
 */
@Entity('invoice_bill_to')
export class InvoiceBillTo {
  @PrimaryGeneratedColumn()
  id: number;

  /** 128 random bits, base64url: the link's `bill_to` parameter. */
  @Column()
  token: string;

  @Column({ name: 'store_id' })
  storeId: number;

  @Column({ name: 'test_mode' })
  testMode: boolean;

  /** SHA-256 (hex) of the canonical fields: one row per set of details. */
  @Column()
  digest: string;

  @Column({ type: 'text', nullable: true })
  name: string | null;

  @Column({ type: 'text', nullable: true })
  address: string | null;

  @Column({ type: 'text', nullable: true })
  city: string | null;

  @Column({ type: 'text', nullable: true })
  state: string | null;

  @Column({ name: 'zip_code', type: 'text', nullable: true })
  zipCode: string | null;

  @Column({ type: 'text', nullable: true })
  country: string | null;

  @Column({ type: 'text', nullable: true })
  notes: string | null;

  @Column({ type: 'text', nullable: true })
  locale: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
