import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from '@20minutes/s3rver';
import type { S3StorageSettings } from '../../src/storage/storage-url';

// s3rver's own signature helpers, for the shim below.
import v4 from '@20minutes/s3rver/lib/signature/v4.js';
import AWSAccount from '@20minutes/s3rver/lib/models/account.js';

/** s3rver's built-in key pair. */
export const S3_ACCESS_KEY = 'S3RVER';
export const S3_SECRET_KEY = 'S3RVER';

export interface TestS3 {
  endpoint: string;
  bucket: string;
  /** `STORAGE_URL` for a test app (credentials through `s3Env`). */
  storageUrl: string;
  settings: S3StorageSettings;
  /** The AWS environment variables the app reads credentials from. */
  env: Record<string, string>;
  /** Where s3rver keeps the objects on disk. */
  directory: string;
  close(): Promise<void>;
}

interface KoaContext {
  path: string;
  method: string;
  headers: Record<string, string>;
  query: Record<string, string>;
  state: Record<string, unknown>;
}

/** RFC 3986 percent-encoding, as SigV4 wants it (`encodeURIComponent` leaves `!'()*`). */
function rfc3986(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/**
 * s3rver rebuilds the canonical request of SigV4 in two ways the AWS SDK v3
 * does not: on `/bucket` for a bucket-level request the SDK signs on
 * `/bucket/` (ListObjectsV2), and with `encodeURIComponent` for the query
 * (a presigned `response-content-disposition` holds `'`). Both make it
 * refuse valid signatures. This checks each SigV4 request first, as S3
 * does (the path as sent, RFC 3986 query encoding), with s3rver's own
 * helpers and key, and marks it authenticated only on a match; anything
 * else, a wrong or expired signature included, is still judged by s3rver.
 */
function awsCanonicalSignatures() {
  return async (ctx: KoaContext, next: () => Promise<void>) => {
    let request: ReturnType<typeof v4.parseHeader> & { time: string };
    try {
      if (ctx.headers.authorization?.startsWith('AWS4-'))
        request = {
          ...v4.parseHeader(ctx.headers),
          time: ctx.headers['x-amz-date'],
        };
      else if (ctx.query['X-Amz-Algorithm']) request = v4.parseQuery(ctx.query);
      else return next();
    } catch {
      return next();
    }
    const query = Object.entries(ctx.query)
      .filter(([name]) => name !== 'X-Amz-Signature')
      .map(([name, value]) => `${rfc3986(name)}=${rfc3986(value)}`)
      .sort()
      .join('&');
    const stringToSign = v4.getStringToSign(
      {
        method: ctx.method,
        headers: ctx.headers,
        uri: ctx.path,
        querystring: query,
        timestamp: request.time,
      },
      request,
    );
    const key = v4.getSigningKey(
      S3_SECRET_KEY,
      request.credential.date,
      request.credential.region,
      request.credential.service,
    );
    const signature = createHmac('sha256', key)
      .update(stringToSign, 'utf8')
      .digest('hex');
    if (
      request.accessKeyId === S3_ACCESS_KEY &&
      signature === request.signatureProvided
    )
      ctx.state.account = AWSAccount.DUMMY_ACCOUNT;
    return next();
  };
}

/**
 * A local S3-compatible server (s3rver: real HTTP, SigV4 signatures and
 * presigned URLs checked, multipart uploads, ranges) with one bucket.
 */
export async function startTestS3(prefix = ''): Promise<TestS3> {
  const directory = mkdtempSync(join(tmpdir(), 'zest-s3-'));
  const bucket = 'zest-test';
  const server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    directory,
    silent: true,
    configureBuckets: [{ name: bucket }],
  });
  (server as unknown as { middleware: unknown[] }).middleware.unshift(
    awsCanonicalSignatures(),
  );
  const { port } = (await server.run()) as { port: number };
  const endpoint = `http://127.0.0.1:${port}`;
  const storageUrl = `s3://${bucket}${prefix ? `/${prefix}` : ''}?endpoint=${encodeURIComponent(endpoint)}&region=us-east-1&force_path_style=true`;
  return {
    endpoint,
    bucket,
    storageUrl,
    settings: {
      bucket,
      prefix: prefix ? `${prefix}/` : '',
      endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
    },
    env: {
      AWS_ACCESS_KEY_ID: S3_ACCESS_KEY,
      AWS_SECRET_ACCESS_KEY: S3_SECRET_KEY,
    },
    directory,
    close: async () => {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
