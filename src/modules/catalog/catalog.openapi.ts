import type { OpenApiContribution } from '../../http/openapi/openapi-contribution';
import {
  array,
  bool,
  exact,
  int,
  nullable,
  oneOf,
  str,
  ts,
  url,
  uuid,
} from '../../http/openapi/schema';

const tusHeader = (name: string, description: string, required = true) => ({
  name,
  in: 'header' as const,
  required,
  description,
  schema: { type: 'string' as const },
});
/** An error answered with a JSON:API error document. */
const tusErrorResponse = (description: string) => ({
  description,
  content: {
    'application/vnd.api+json': {
      schema: { $ref: '#/components/schemas/ErrorDocument' },
    },
  },
});
const tusResumable = tusHeader('Tus-Resumable', 'Always `1.0.0`.');
const TUS_NOTE =
  "Extension, tus 1.0.0 (https://tus.io/protocols/resumable-upload), served by `@tus/server`: the request and response follow the tus protocol, not JSON:API; errors of Zest's own checks carry a JSON:API error document, the tus server's own ones a short text. Idempotency-Key does not apply (tus resumes with HEAD and Upload-Offset instead).";

const interval = oneOf('day', 'week', 'month', 'year');

export const catalogOpenApi: OpenApiContribution = {
  resources: [
    {
      type: 'products',
      attributes: {
        store_id: int(),
        name: str(),
        slug: str(),
        description: str('HTML.'),
        status: oneOf('draft', 'published'),
        status_formatted: str(),
        thumb_url: nullable(str()),
        large_thumb_url: nullable(str()),
        price: int('Cents: the lowest current price of its variants.'),
        price_formatted: nullable(str()),
        from_price: nullable(int()),
        to_price: nullable(int()),
        from_price_formatted: nullable(str()),
        to_price_formatted: nullable(str()),
        pay_what_you_want: bool(),
        buy_now_url: nullable(url()),
        created_at: ts(),
        updated_at: ts(),
        test_mode: bool(),
      },
    },
    {
      type: 'variants',
      description:
        'A variant; `price` to `suggested_price` are deprecated and mirror its current price.',
      attributes: {
        product_id: int(),
        name: str(),
        slug: str(),
        description: str(),
        links: array(exact({ title: str(), url: url() })),
        has_license_keys: bool(),
        license_activation_limit: int(),
        is_license_limit_unlimited: bool(),
        license_length_value: int(),
        license_length_unit: oneOf('days', 'months', 'years'),
        is_license_length_unlimited: bool(),
        sort: int(),
        status: oneOf('pending', 'draft', 'published'),
        status_formatted: str(),
        created_at: ts(),
        updated_at: ts(),
        test_mode: bool(),
        download_limit: nullable(
          int('Extension: downloads per order item; null is unlimited.'),
        ),
        min_quantity: int(
          'Extension: the fewest units one purchase or subscription item may have (default 1).',
        ),
        max_quantity: int(
          'Extension: the most units one purchase or subscription item may have (default 1000, at most 10000).',
        ),
        price: int(),
        is_subscription: bool(),
        interval: nullable(interval),
        interval_count: nullable(int()),
        has_free_trial: bool(),
        trial_interval: nullable(interval),
        trial_interval_count: nullable(int()),
        pay_what_you_want: bool(),
        min_price: int(),
        suggested_price: int(),
      },
    },
    {
      type: 'prices',
      description:
        'Prices are immutable; a variant’s current price is its newest. No `test_mode`.',
      attributes: {
        variant_id: int(),
        category: oneOf('one_time', 'subscription', 'lead_magnet', 'pwyw'),
        scheme: oneOf('standard', 'package', 'graduated', 'volume'),
        usage_aggregation: nullable(
          oneOf('sum', 'last_during_period', 'last_ever', 'max'),
        ),
        unit_price: nullable(int()),
        unit_price_decimal: nullable(str()),
        setup_fee_enabled: nullable(bool()),
        setup_fee: nullable(int()),
        package_size: int(),
        tiers: nullable(
          array(
            exact({
              last_unit: { anyOf: [int(), { type: 'string', enum: ['inf'] }] },
              unit_price: int(),
              unit_price_decimal: nullable(str()),
              fixed_fee: int(),
            }),
          ),
        ),
        renewal_interval_unit: nullable(interval),
        renewal_interval_quantity: nullable(int()),
        trial_interval_unit: nullable(interval),
        trial_interval_quantity: nullable(int()),
        min_price: nullable(int()),
        suggested_price: nullable(int()),
        tax_code: oneOf('eservice', 'ebook', 'saas'),
        created_at: ts(),
        updated_at: ts(),
      },
    },
    {
      type: 'files',
      description: 'A downloadable file (camelCase timestamps, as upstream).',
      attributes: {
        variant_id: int(),
        identifier: uuid(),
        name: str(),
        extension: str(),
        download_url: url('Signed; expires an hour after the request.'),
        size: int('Bytes.'),
        size_formatted: str(),
        version: str(),
        sort: int(),
        status: oneOf('draft', 'published'),
        createdAt: ts(),
        updatedAt: ts(),
        test_mode: bool(),
        sha256: nullable(
          str(
            'Extension: hex SHA-256 of the bytes, recorded at upload (null for a file from before storage until it is moved).',
          ),
        ),
      },
    },
  ],
  operations: {
    'POST /v1/files': {
      summary: 'Upload a file (extension)',
      description:
        "Attaches a file to a variant: `multipart/form-data` with a `data` field holding the JSON:API document (`relationships.variant`; optional `name`, default the uploaded file name, and `sort`, default after the variant's other files) and then the `file` part. The bytes stream to storage; the media type is sniffed from the content and the SHA-256 returned as `sha256`. Larger than `FILE_MAX_BYTES` (5 GiB by default): 413 `file_too_large`, and nothing is stored.",
      tags: ['files'],
      requestBody: {
        required: true,
        content: {
          'multipart/form-data': {
            schema: {
              type: 'object',
              properties: {
                data: {
                  type: 'string',
                  description:
                    'JSON: {"data":{"type":"files","attributes":{"name":…,"sort":…},"relationships":{"variant":{"data":{"type":"variants","id":…}}}}}',
                },
                file: { type: 'string', format: 'binary' },
              },
              required: ['data', 'file'],
            },
          },
        },
      },
      responses: {
        '201': {
          description: 'The file.',
          content: {
            'application/vnd.api+json': {
              schema: { $ref: '#/components/schemas/FilesDocument' },
            },
          },
        },
        '400': { $ref: '#/components/responses/BadRequest' },
        '401': { $ref: '#/components/responses/Unauthorized' },
        '404': { $ref: '#/components/responses/NotFound' },
        '413': { $ref: '#/components/responses/PayloadTooLarge' },
        '415': { $ref: '#/components/responses/UnsupportedMediaType' },
        '422': { $ref: '#/components/responses/Unprocessable' },
        '429': { $ref: '#/components/responses/TooManyRequests' },
      },
    },
    'POST /v1/files/uploads': {
      summary: 'Create a resumable upload (tus, extension)',
      description:
        TUS_NOTE +
        " Creation (and creation-with-upload): `Upload-Length` (at most `FILE_MAX_BYTES`, else 413 `file_too_large` and nothing is stored) and `Upload-Metadata` naming the variant (`variant`, one of the caller's in the key's mode, else 404), the file name (`filename`) and optionally `sort`. Answers 201 with the upload's URL in `Location` (its last segment is the `{id}` of the other upload routes). An `Upload-Length` of 0 completes at once and is refused (422 `empty_file`), nothing kept.",
      tags: ['files'],
      parameters: [
        tusResumable,
        tusHeader('Upload-Length', 'The file size in bytes.'),
        tusHeader(
          'Upload-Metadata',
          'Comma-separated `key base64(value)` pairs: `variant`, `filename`, optional `sort`.',
        ),
      ],
      responses: {
        '201': { description: 'Created; `Location` is the upload URL.' },
        '400': { $ref: '#/components/responses/BadRequest' },
        '401': { $ref: '#/components/responses/Unauthorized' },
        '404': { $ref: '#/components/responses/NotFound' },
        '412': tusErrorResponse('Tus-Resumable missing or unsupported.'),
        '413': { $ref: '#/components/responses/PayloadTooLarge' },
        '422': { $ref: '#/components/responses/Unprocessable' },
        '429': { $ref: '#/components/responses/TooManyRequests' },
      },
    },
    'PATCH /v1/files/uploads/{id}': {
      summary: 'Append to a resumable upload (tus, extension)',
      description:
        TUS_NOTE +
        " (`HEAD` on the same URL, not listed here, answers `Upload-Offset` to resume from, `Upload-Length`, and `Zest-File-Id` once complete.) `Content-Type: application/offset+octet-stream`, `Upload-Offset` equal to the server's (else 409). A request cut short keeps what arrived. The request that completes the upload records the file as `POST /v1/files` does (sniffed type, SHA-256, after the variant's other files unless `sort`) and answers its id in `Zest-File-Id`. When recording fails (the variant is gone: 404; the file is empty: 422; the database fails: 500) the upload and its bytes are removed and no file is recorded: `HEAD` answers 404, and a client starts a new upload.",
      tags: ['files'],
      parameters: [
        tusResumable,
        tusHeader('Upload-Offset', 'The offset these bytes start at.'),
      ],
      requestBody: {
        required: true,
        content: {
          'application/offset+octet-stream': {
            schema: { type: 'string', format: 'binary' },
          },
        },
      },
      responses: {
        '204': { description: 'Stored; `Upload-Offset` is the new offset.' },
        '400': { $ref: '#/components/responses/BadRequest' },
        '401': { $ref: '#/components/responses/Unauthorized' },
        '404': { $ref: '#/components/responses/NotFound' },
        '409': tusErrorResponse("Upload-Offset differs from the server's."),
        '412': tusErrorResponse('Tus-Resumable missing or unsupported.'),
        '410': tusErrorResponse('The upload expired.'),
        '413': { $ref: '#/components/responses/PayloadTooLarge' },
        '415': { $ref: '#/components/responses/UnsupportedMediaType' },
        '422': { $ref: '#/components/responses/Unprocessable' },
        '429': { $ref: '#/components/responses/TooManyRequests' },
        '500': { $ref: '#/components/responses/InternalError' },
      },
    },
    'DELETE /v1/files/uploads/{id}': {
      summary: 'Terminate a resumable upload (tus, extension)',
      description:
        TUS_NOTE +
        ' Removes the upload and the bytes received; the file of a completed upload stays (delete it with `DELETE /v1/files/{id}`).',
      tags: ['files'],
      parameters: [tusResumable],
      responses: {
        '204': { description: 'Terminated.' },
        '400': { $ref: '#/components/responses/BadRequest' },
        '401': { $ref: '#/components/responses/Unauthorized' },
        '404': { $ref: '#/components/responses/NotFound' },
        '412': tusErrorResponse('Tus-Resumable missing or unsupported.'),
        '429': { $ref: '#/components/responses/TooManyRequests' },
      },
    },
    'GET /downloads/{identifier}': {
      summary: 'Download a file (signed link)',
      description:
        "The `download_url` of a file, or a buyer's link for one order item (`item`): the file itself while the signature is valid, with `Content-Disposition`, `Repr-Digest` (SHA-256) and `Range` support; on S3 storage a redirect to a short-lived presigned URL. A buyer's link counts a download per order item up to the variant's `download_limit` and stops working when the order is refunded. Not JSON:API.",
      tags: ['Hosted pages'],
      responses: {
        '200': {
          description: 'The file, with its own media type.',
          content: {
            '*/*': {
              schema: { type: 'string', format: 'binary' },
            },
          },
        },
        '206': {
          description: 'The requested range of the file.',
          content: {
            '*/*': {
              schema: { type: 'string', format: 'binary' },
            },
          },
        },
        '302': { description: 'S3 storage: the presigned URL of the file.' },
        '403': { $ref: '#/components/responses/Forbidden' },
        '404': { $ref: '#/components/responses/NotFound' },
        '416': { description: 'The range lies outside the file.' },
        '429': { $ref: '#/components/responses/TooManyRequests' },
      },
    },
  },
};
