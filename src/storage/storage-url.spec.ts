import { parseStorageUrl } from './storage-url';

describe('STORAGE_URL', () => {
  it('reads bucket, prefix, endpoint, region and path style', () => {
    expect(
      parseStorageUrl(
        's3://shop-files/zest/prod/?endpoint=http://minio.internal:9000/&region=eu-west-1&force_path_style=true',
      ),
    ).toEqual({
      bucket: 'shop-files',
      prefix: 'zest/prod/',
      endpoint: 'http://minio.internal:9000',
      region: 'eu-west-1',
      forcePathStyle: true,
    });
    expect(parseStorageUrl('s3://shop-files')).toEqual({
      bucket: 'shop-files',
      prefix: '',
      endpoint: null,
      region: 'us-east-1',
      forcePathStyle: false,
    });
  });

  it.each([
    ['https://bucket', /s3:\/\/bucket/],
    ['s3://key:secret@bucket', /credentials/],
    ['s3://B_ad', /invalid bucket/],
    ['s3://bucket?endpiont=http://x', /unknown parameter "endpiont"/],
    ['s3://bucket?endpoint=minio:9000', /endpoint/],
    ['s3://bucket?force_path_style=yes', /force_path_style/],
  ])('refuses %s', (value, message) => {
    expect(() => parseStorageUrl(value)).toThrow(message);
  });
});
