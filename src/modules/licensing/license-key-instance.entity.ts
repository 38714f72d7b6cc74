import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';

/** One activation of a license key (a machine, a site…). */
@Entity('license_key_instances')
export class LicenseKeyInstance {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'license_key_id' })
  licenseKeyId: number;

  @Column({ name: 'store_id' })
  storeId: number;

  /** The UUID the License API calls `instance.id`. */
  @Column({ type: 'uuid' })
  identifier: string;

  @Column()
  name: string;

  @Column({ name: 'test_mode' })
  testMode: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
