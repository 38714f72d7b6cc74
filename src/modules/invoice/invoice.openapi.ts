import {
  jsonApiResponse,
  metaDocument,
} from '../../http/openapi/json-api-schemas';
import type {
  OpenApiContribution,
  OperationDoc,
} from '../../http/openapi/openapi-contribution';
import { writeDocumentSchema } from '../../http/openapi/openapi-operations';
import { exact, url } from '../../http/openapi/schema';
import { validatorSchema } from '../../http/openapi/validator-schema';
import { INVOICE_FIELD_NAMES, InvoiceFieldsAttributes } from './invoice-fields';

const errors = Object.fromEntries(
  [
    ['400', 'BadRequest'],
    ['401', 'Unauthorized'],
    ['404', 'NotFound'],
    ['415', 'UnsupportedMediaType'],
    ['422', 'Unprocessable'],
    ['429', 'TooManyRequests'],
    ['500', 'InternalError'],
  ].map(([status, name]) => [
    status,
    { $ref: `#/components/responses/${name}` },
  ]),
);

/** generate-invoice of one invoice source type (fields in the query string or a JSON:API body). */
export function generateInvoiceOperation(type: string): OperationDoc {
  const fields = validatorSchema(InvoiceFieldsAttributes);
  return {
    summary: `Generate an invoice PDF for ${type === 'orders' ? 'an order' : `a ${type.replace(/-/g, ' ').replace(/s$/, '')}`}`,
    description:
      'Stores the bill-to fields, queues the PDF and answers at once with a signed, non-expiring `download_invoice` link, which serves the PDF when ready (202 until then). The fields come from the query string or a JSON:API body (not both with different values). Unlike the live API, the link does not repeat them: it names the stored fields by an opaque `bill_to` token, so no buyer details reach logs through it. The same fields for a record of the same store and mode give the same link.',
    tags: [type],
    parameters: INVOICE_FIELD_NAMES.map((name) => ({
      name,
      in: 'query' as const,
      required: false,
      schema: fields.properties?.[name] ?? { type: 'string' },
    })),
    requestBody: {
      required: false,
      content: {
        'application/vnd.api+json': {
          schema: writeDocumentSchema({
            type,
            attributes: InvoiceFieldsAttributes,
          }),
        },
      },
    },
    responses: {
      '200': jsonApiResponse(
        'The signed link to the PDF.',
        metaDocument(exact({ urls: exact({ download_invoice: url() }) })),
      ),
      ...errors,
    },
  };
}

export const invoiceOpenApi: OpenApiContribution = {
  operations: {
    'POST /v1/orders/{id}/generate-invoice': generateInvoiceOperation('orders'),
    'GET /invoices/{type}/{id}': {
      summary: 'Download an invoice PDF (signed link)',
      description:
        'The `download_invoice` link: the PDF once rendered, 202 with `Retry-After` until then. Use the link as issued: its parameters are covered by the signature. Links issued before the bill-to fields were stored carry the fields themselves instead of `bill_to`, and are still served.',
      tags: ['Hosted pages'],
      parameters: [
        {
          name: 'bill_to',
          in: 'query',
          required: false,
          description:
            'Opaque token of the stored bill-to fields; absent when none were given.',
          schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{22}$' },
        },
        {
          name: 'owner',
          in: 'query',
          required: false,
          description:
            'The user whose view of the record the link carries (absent on `urls.invoice_url`).',
          schema: { type: 'integer' },
        },
        {
          name: 'mode',
          in: 'query',
          required: false,
          schema: { type: 'string', enum: ['test', 'live'] },
        },
        {
          name: 'signature',
          in: 'query',
          required: true,
          schema: { type: 'string', pattern: '^[0-9a-f]{64}$' },
        },
      ],
      responses: {
        '200': {
          description: 'The PDF.',
          content: {
            'application/pdf': { schema: { type: 'string', format: 'binary' } },
          },
        },
        '202': {
          description: 'Still being generated.',
          headers: { 'Retry-After': { schema: { type: 'integer' } } },
          content: { 'text/plain': { schema: { type: 'string' } } },
        },
        '400': { $ref: '#/components/responses/BadRequest' },
        '403': { $ref: '#/components/responses/Forbidden' },
        '404': { $ref: '#/components/responses/NotFound' },
        '429': { $ref: '#/components/responses/TooManyRequests' },
      },
    },
  },
};
