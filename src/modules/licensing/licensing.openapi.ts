import {
  plainJsonResponse,
  htmlRefusals,
} from '../../http/openapi/json-api-schemas';
import type {
  OpenApiContribution,
  OperationDoc,
} from '../../http/openapi/openapi-contribution';
import type { SchemaObject } from '../../http/openapi/schema';
import {
  bool,
  exact,
  int,
  nullable,
  oneOf,
  str,
  ts,
  uuid,
} from '../../http/openapi/schema';
import { LICENSE_KEY_STATUSES } from './license-key.state';

const licenseKey = exact({
  id: int(),
  status: oneOf(...LICENSE_KEY_STATUSES),
  key: str(),
  activation_limit: nullable(int('null when unlimited.')),
  activation_usage: int(),
  created_at: ts(),
  expires_at: nullable(ts()),
  test_mode: bool(),
});
const instance = exact({ id: uuid(), name: str(), created_at: ts() });
const meta = exact({
  store_id: int(),
  order_id: int(),
  order_item_id: int(),
  product_id: int(),
  product_name: str(),
  variant_id: int(),
  variant_name: str(),
  customer_id: int(),
  customer_name: str(),
  customer_email: str(),
});

/**
 * The License API answers plain JSON: a result with the key, or a refusal
 * with `error` and the outcome flag false (only the flag and `error` when
 * the key is unknown or the request is invalid).
 */
function licenseOperation(
  summary: string,
  flag: string,
  fields: Record<string, SchemaObject>,
  required: string[],
  withInstance: 'always' | 'nullable' | 'never',
): OperationDoc {
  const result = (ok: boolean): SchemaObject => {
    const properties: Record<string, SchemaObject> = {
      [flag]: { type: 'boolean', enum: [ok] },
      error: ok ? { type: 'null' } : str(),
      license_key: licenseKey,
    };
    if (withInstance === 'always' && ok) properties.instance = instance;
    if (withInstance === 'nullable')
      properties.instance = ok ? nullable(instance) : { type: 'null' };
    properties.meta = meta;
    return exact(properties);
  };
  const brief = exact({
    [flag]: { type: 'boolean', enum: [false] },
    error: str(),
  });
  const body = { ...exact(fields), required };
  return {
    summary,
    tags: ['License API'],
    security: [],
    requestBody: {
      required: true,
      content: {
        'application/json': { schema: body },
        'application/x-www-form-urlencoded': { schema: body },
        'application/vnd.api+json': { schema: body },
      },
    },
    responses: {
      '200': plainJsonResponse('Done.', result(true)),
      '400': plainJsonResponse(
        'Refused (disabled or expired key, limit reached, unknown instance).',
        { anyOf: [result(false), brief] },
      ),
      '404': plainJsonResponse(
        'Unknown license key, or unknown instance of a known key.',
        {
          anyOf: [brief, result(false)],
        },
      ),
      '422': plainJsonResponse('A field is missing or invalid.', brief),
      '429': plainJsonResponse('Rate limit (per client IP).', brief),
      '500': plainJsonResponse('Unexpected failure.', brief),
    },
  };
}

export const licensingOpenApi: OpenApiContribution = {
  resources: [
    {
      type: 'license-keys',
      attributes: {
        store_id: int(),
        customer_id: int(),
        order_id: int(),
        order_item_id: int(),
        product_id: int(),
        user_name: str(),
        user_email: str(),
        key: uuid(),
        key_short: str('"XXXX-" and the last 12 characters.'),
        activation_limit: nullable(int('null when unlimited.')),
        instances_count: int(),
        disabled: bool(),
        status: oneOf(...LICENSE_KEY_STATUSES),
        status_formatted: str(),
        expires_at: nullable(ts()),
        created_at: ts(),
        updated_at: ts(),
        test_mode: bool(),
      },
    },
    {
      type: 'license-key-instances',
      attributes: {
        license_key_id: int(),
        identifier: uuid('The License API’s instance id.'),
        name: str(),
        created_at: ts(),
        updated_at: ts(),
      },
    },
  ],
  operations: {
    'POST /v1/licenses/activate': licenseOperation(
      'Activate a license key',
      'activated',
      { license_key: str(), instance_name: str() },
      ['license_key', 'instance_name'],
      'always',
    ),
    'POST /v1/licenses/validate': licenseOperation(
      'Validate a license key',
      'valid',
      { license_key: str(), instance_id: uuid() },
      ['license_key'],
      'nullable',
    ),
    'POST /v1/licenses/deactivate': licenseOperation(
      'Deactivate a license key instance',
      'deactivated',
      { license_key: str(), instance_id: uuid() },
      ['license_key', 'instance_id'],
      'never',
    ),
    'POST /portal/license-keys/{id}/instances/{instance}/deactivate': {
      summary:
        'Deactivate an activation from the customer portal (signed link)',
      description:
        'The portal form of a license key activation: the License API deactivation, then 303 to the customer portal.',
      tags: ['Hosted pages'],
      responses: {
        '303': { description: 'Deactivated: back to the customer portal.' },
        ...htmlRefusals,
      },
    },
  },
};
