import { Column, Entity, PrimaryColumn } from 'typeorm';

export interface ProductOptions {
  name: string;
  description: string;
  media: string[];
  redirect_url: string;
  receipt_button_text: string;
  receipt_link_url: string;
  receipt_thank_you_note: string;
  enabled_variants: number[];
  confirmation_title: string;
  confirmation_message: string;
  confirmation_button_text: string;
}

/** The 8 default keys, plus `dark` and the colour keys when they were supplied. */
export interface CheckoutOptions {
  embed: boolean;
  media: boolean;
  logo: boolean;
  desc: boolean;
  discount: boolean;
  skip_trial: boolean;
  quantity: number;
  subscription_preview: boolean;
  dark?: boolean;
  /** Extension: false sends no receipt e-mail for this checkout's orders. */
  send_receipt?: boolean;
  [color: `${string}_color`]: string | undefined;
}

export interface CheckoutData {
  email: string;
  name: string;
  billing_address: { country: string; zip: string };
  tax_number: string;
  discount_code: string;
  custom: Record<string, unknown>;
  variant_quantities: { variant_id: number; quantity: number }[];
}

@Entity('checkouts')
export class Checkout {
  /** A UUID, as upstream: checkout ids appear in public URLs. */
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ name: 'store_id' })
  storeId: number;

  @Column({ name: 'variant_id' })
  variantId: number;

  @Column({ name: 'test_mode' })
  testMode: boolean;

  @Column({ name: 'custom_price', type: 'integer', nullable: true })
  customPrice: number | null;

  @Column({ name: 'product_options', type: 'jsonb' })
  productOptions: ProductOptions;

  @Column({ name: 'checkout_options', type: 'jsonb' })
  checkoutOptions: CheckoutOptions;

  @Column({ name: 'checkout_data', type: 'jsonb' })
  checkoutData: CheckoutData;

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
