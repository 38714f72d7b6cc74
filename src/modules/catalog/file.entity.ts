import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';

export type FileStatus = 'draft' | 'published';

/** A downloadable file of a variant (`files`). Named apart from the global `File`. */
@Entity('files')
export class CatalogFile {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'uuid' })
  identifier: string;

  @Column({ name: 'store_id' })
  storeId: number;

  @Column({ name: 'variant_id' })
  variantId: number;

  @Column({ name: 'test_mode' })
  testMode: boolean;

  @Column()
  name: string;

  @Column()
  extension: string;

  /** Bytes. */
  @Column({ type: 'integer' })
  size: number;

  @Column({ name: 'content_type' })
  contentType: string;

  @Column()
  version: string;

  @Column({ type: 'integer' })
  sort: number;

  @Column({ type: 'text' })
  status: FileStatus;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

/** The bytes of a file, kept out of the metadata row. */
@Entity('file_contents')
export class FileContent {
  @Column({ name: 'file_id', primary: true })
  fileId: number;

  @Column({ type: 'bytea' })
  content: Buffer;
}
