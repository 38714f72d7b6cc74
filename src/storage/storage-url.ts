/** Where an S3-compatible store is, from `STORAGE_URL`; credentials come from the AWS SDK's usual sources. */
export interface S3StorageSettings {
  bucket: string;
  /** Prepended to every key, e.g. `zest/` (from the URL's path); empty for the bucket's root. */
  prefix: string;
  /** null: AWS S3 itself, found from the region. */
  endpoint: string | null;
  region: string;
  /** Buckets addressed as `endpoint/bucket/key` (MinIO, most self-hosted stores). */
  forcePathStyle: boolean;
}

const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const KNOWN = new Set(['endpoint', 'region', 'force_path_style']);

/**
 * `s3://bucket[/prefix]?endpoint=https://minio.internal:9000&region=eu-west-1&force_path_style=true`.
 * Unknown parameters are refused so that a typo does not silently select AWS.
 */
export function parseStorageUrl(value: string): S3StorageSettings {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error('must be an s3://bucket URL');
  }
  if (url.protocol !== 's3:') throw new Error('must be an s3://bucket URL');
  if (url.username || url.password)
    throw new Error(
      'must not carry credentials (use AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)',
    );
  const bucket = url.hostname;
  if (!BUCKET.test(bucket)) throw new Error('names an invalid bucket');
  for (const name of url.searchParams.keys())
    if (!KNOWN.has(name))
      throw new Error(
        `has an unknown parameter ${JSON.stringify(name)} (known: endpoint, region, force_path_style)`,
      );
  const endpoint = url.searchParams.get('endpoint');
  if (endpoint !== null && !/^https?:\/\/[^/]/.test(endpoint))
    throw new Error('endpoint must be an http(s) URL');
  const pathStyle = url.searchParams.get('force_path_style');
  if (pathStyle !== null && !['true', 'false', '1', '0'].includes(pathStyle))
    throw new Error('force_path_style must be true or false');
  const prefix = decodeURIComponent(url.pathname).replace(/^\/+|\/+$/g, '');
  return {
    bucket,
    prefix: prefix ? `${prefix}/` : '',
    endpoint: endpoint?.replace(/\/+$/, '') ?? null,
    region: url.searchParams.get('region') ?? 'us-east-1',
    forcePathStyle: pathStyle === 'true' || pathStyle === '1',
  };
}
