import { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import {
  assertSafeKey,
  ByteRange,
  FileStorage,
  PresignOptions,
  StoredFile,
} from './file-storage';
import type { S3StorageSettings } from './storage-url';

/**
 * Parts of a streamed upload: with two in flight an upload holds about
 * 16 MiB whatever the file's size, and S3's 10,000-part cap allows files up
 * to 78 GiB.
 */
const PART_SIZE = 8 * 1024 * 1024;
const PARTS_IN_FLIGHT = 2;

function isNotFound(error: unknown): boolean {
  return (
    error instanceof S3ServiceException &&
    (error.name === 'NoSuchKey' ||
      error.name === 'NotFound' ||
      error.$metadata.httpStatusCode === 404)
  );
}

/** `attachment; filename*=UTF-8''…` (RFC 6266), safe for any name. */
export function attachmentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

/**
 * FileStorage on an S3-compatible bucket (AWS S3, MinIO, Ceph, R2, …), which
 * API and worker replicas share. Writes are atomic on the store's side: an
 * object appears when its PUT or multipart upload completes. Interrupted
 * multipart uploads are aborted by the SDK; a crashed process can leave
 * parts behind, which a bucket lifecycle rule (AbortIncompleteMultipartUpload)
 * removes.
 */
export class S3FileStorage implements FileStorage {
  private readonly client: S3Client;

  constructor(
    private readonly settings: S3StorageSettings,
    client?: S3Client,
  ) {
    this.client =
      client ??
      new S3Client({
        region: settings.region,
        endpoint: settings.endpoint ?? undefined,
        forcePathStyle: settings.forcePathStyle,
        // Checksums only where the API demands them: several S3-compatible
        // stores refuse the SDK's default trailing CRC32 on streamed bodies.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      });
  }

  async put(key: string, data: Buffer): Promise<void> {
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.settings.bucket,
        Key: this.key(key),
        Body: data,
        ContentLength: data.length,
      }),
    );
  }

  async putStream(key: string, source: Readable): Promise<void> {
    const upload = new Upload({
      client: this.client,
      params: {
        Bucket: this.settings.bucket,
        Key: this.key(key),
        Body: source,
      },
      partSize: PART_SIZE,
      queueSize: PARTS_IN_FLIGHT,
      leavePartsOnError: false,
    });
    // The SDK reads the body and stops on its own errors, not on the
    // source's: abort the upload when the source fails.
    let failure: unknown = null;
    const onError = (error: unknown) => {
      failure ??= error;
      void upload.abort().catch(() => undefined);
    };
    source.once('error', onError);
    try {
      await upload.done();
    } catch (error) {
      throw failure ?? error;
    } finally {
      source.off('error', onError);
    }
    if (failure) throw failure as Error;
  }

  async open(key: string, range?: ByteRange): Promise<StoredFile | null> {
    try {
      const result = await this.client.send(
        new GetObjectCommand({
          Bucket: this.settings.bucket,
          Key: this.key(key),
          Range: range ? `bytes=${range.start}-${range.end}` : undefined,
        }),
      );
      const total = result.ContentRange
        ? Number(result.ContentRange.split('/')[1])
        : Number(result.ContentLength);
      return { size: total, stream: result.Body as Readable };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  presignedUrl(key: string, options: PresignOptions): Promise<string> {
    return getSignedUrl(
      this.client,
      new GetObjectCommand({
        Bucket: this.settings.bucket,
        Key: this.key(key),
        ResponseContentDisposition: attachmentDisposition(options.fileName),
        ResponseContentType: options.contentType,
      }),
      { expiresIn: options.expiresInSeconds },
    );
  }

  async exists(key: string): Promise<boolean> {
    try {
      await this.client.send(
        new HeadObjectCommand({
          Bucket: this.settings.bucket,
          Key: this.key(key),
        }),
      );
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(
      new DeleteObjectCommand({
        Bucket: this.settings.bucket,
        Key: this.key(key),
      }),
    );
  }

  async list(prefix: string): Promise<string[]> {
    const folder = `${this.key(prefix)}/`;
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.settings.bucket,
          Prefix: folder,
          Delimiter: '/',
          ContinuationToken: token,
        }),
      );
      for (const object of page.Contents ?? [])
        if (object.Key)
          keys.push(object.Key.slice(this.settings.prefix.length));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return keys;
  }

  /** Nothing to sweep: objects appear only complete (see the class comment for parts). */
  removeStaleTemporaryFiles(): Promise<number> {
    return Promise.resolve(0);
  }

  close(): void {
    this.client.destroy();
  }

  private key(key: string): string {
    assertSafeKey(key);
    return this.settings.prefix + key;
  }
}
