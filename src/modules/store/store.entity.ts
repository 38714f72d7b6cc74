import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import type { TaxProviderName } from '../tax/tax-provider';
import type { LegalAddress, TaxNumbers } from './store-legal';

@Entity('stores')
export class Store {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'user_id' })
  userId: number;

  @Column()
  name: string;

  @Column()
  slug: string;

  /** A custom domain; null serves the store under CHECKOUT_BASE_URL. */
  @Column({ type: 'text', nullable: true })
  domain: string | null;

  @Column({ name: 'avatar_url', type: 'text', nullable: true })
  avatarUrl: string | null;

  @Column()
  plan: string;

  @Column({ type: 'char', length: 2 })
  country: string;

  @Column({ type: 'char', length: 3 })
  currency: string;

  /** The From of the store's e-mail (`Shop <shop@example.com>`); null: MAIL_FROM. */
  @Column({ name: 'mail_from', type: 'text', nullable: true })
  mailFrom: string | null;

  /** The Reply-To of the store's e-mail; null: none. */
  @Column({ name: 'mail_reply_to', type: 'text', nullable: true })
  mailReplyTo: string | null;

  /** The kinds of e-mail (`MAIL_KINDS`) the store does not send. */
  @Column({ name: 'mail_disabled_kinds', type: 'text', array: true })
  mailDisabledKinds: string[];

  /** Whether prices include tax; null: the deployment's TAX_INCLUSIVE. */
  @Column({ name: 'tax_inclusive', type: 'boolean', nullable: true })
  taxInclusive: boolean | null;

  /** Countries the store charges tax in (`EU`: all 27, the One-Stop Shop); null: wherever the rules require. */
  @Column({
    name: 'tax_registrations',
    type: 'text',
    array: true,
    nullable: true,
  })
  taxRegistrations: string[] | null;

  /** Who computes the store's tax: the built-in tables or Stripe Tax (`stripe`, needs Stripe credentials). */
  @Column({ name: 'tax_provider', type: 'text', default: 'builtin' })
  taxProvider: TaxProviderName;
  /** The seller's legal name on receipts and invoices; null: the store name. */
  @Column({ name: 'legal_name', type: 'text', nullable: true })
  legalName: string | null;

  /** The seller's postal address on receipts and invoices. */
  @Column({ name: 'legal_address', type: 'jsonb', nullable: true })
  legalAddress: LegalAddress | null;

  /** VAT/GST registration numbers by ISO country code. */
  @Column({ name: 'tax_numbers', type: 'jsonb', nullable: true })
  taxNumbers: TaxNumbers | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
