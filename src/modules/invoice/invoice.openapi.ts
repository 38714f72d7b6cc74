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
      'Queues the PDF and answers at once with a signed `download_invoice` link, which serves the PDF when ready (202 until then). The fields come from the query string or a JSON:API body (not both with different values).',
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
        'The `download_invoice` link: the PDF once rendered, 202 with `Retry-After` until then.',
      tags: ['Hosted pages'],
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
        '403': { $ref: '#/components/responses/Forbidden' },
        '404': { $ref: '#/components/responses/NotFound' },
        '429': { $ref: '#/components/responses/TooManyRequests' },
      },
    },
  },
};
