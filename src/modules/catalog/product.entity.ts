import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';

export type ProductStatus = 'draft' | 'published';

@Entity('products')
export class Product {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'store_id' })
  storeId: number;

  @Column({ name: 'test_mode' })
  testMode: boolean;

  @Column()
  name: string;

  @Column()
  slug: string;

  /** HTML. */
  @Column()
  description: string;

  @Column({ type: 'text' })
  status: ProductStatus;

  @Column({ name: 'pay_what_you_want' })
  payWhatYouWant: boolean;

  @Column({ name: 'thumb_url', type: 'text', nullable: true })
  thumbUrl: string | null;

  @Column({ name: 'large_thumb_url', type: 'text', nullable: true })
  largeThumbUrl: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
