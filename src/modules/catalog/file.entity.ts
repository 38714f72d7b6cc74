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

  /** Bytes (bigint: uploads reach FILE_MAX_BYTES; below 2^53 a number is exact). */
  @Column({
    type: 'bigint',
    transformer: {
      to: (value: number) => value,
      from: (value: string) => Number(value),
    },
  })
  size: number;

  @Column({ name: 'content_type' })
  contentType: string;

  @Column()
  version: string;

  @Column({ type: 'integer' })
  sort: number;

  @Column({ type: 'text' })
  status: FileStatus;

  /** The object in FileStorage; null while the bytes are still in `file_contents`. */
  @Column({ name: 'storage_key', type: 'text', nullable: true })
  storageKey: string | null;

  /** Hex SHA-256 of the bytes; null for a file from before uploads until it is moved to storage. */
  @Column({ type: 'text', nullable: true })
  sha256: string | null;

  /** Set by DELETE: the file is no longer offered; orders placed before keep it. */
  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

/** The bytes of a file from before storage; FileContentMover moves them out. */
@Entity('file_contents')
export class FileContent {
  @Column({ name: 'file_id', primary: true })
  fileId: number;

  @Column({ type: 'bytea' })
  content: Buffer;
}
