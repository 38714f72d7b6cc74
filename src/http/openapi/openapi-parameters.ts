import type {
  HeaderObject,
  ParameterObject,
  SchemaObject,
} from '@nestjs/swagger';
import type { FilterParser } from '../../common/list-query';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../json-api/list-query';
import { AnyResourceType } from '../json-api/resource';

function filterSchema(parser: FilterParser): SchemaObject {
  const allowed = (parser as { allowed?: string[] }).allowed;
  if (allowed) return { type: 'string', enum: allowed };
  if (parser.name === 'id') return { type: 'integer', minimum: 1 };
  if (parser.name === 'boolean') return { type: 'boolean' };
  if (parser.name === 'email') return { type: 'string', format: 'email' };
  return { type: 'string' };
}

/** What a filter matches, and what a value no record has gets (see filterParsers). */
function filterDescription(parser: FilterParser): string {
  if ((parser as { allowed?: string[] }).allowed || parser.name === 'boolean')
    return 'Exact match; any other value gives an empty page.';
  if (parser.name === 'id')
    return 'Exact match. A value that is not an integer is a 400; an integer no record has gives an empty page.';
  if (parser.name === 'email')
    return 'The whole address, compared without regard to case (as a purchase finds its customer).';
  return 'Exact match.';
}

/** `{name}` segments of an OpenAPI path. */
export const pathParameters = (path: string): ParameterObject[] =>
  [...path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
    ...(name === 'id' ? { description: 'The record id.' } : {}),
  }));

export const includeParameter = (includable: string[]): ParameterObject => ({
  name: 'include',
  in: 'query',
  required: false,
  description: `Comma-separated relationships to add as \`included\` (empty = none). Allowed: ${includable.join(', ')}.`,
  schema: { type: 'string' },
});

/** Paging, sort, the resource's filters and (when it has any) include. */
export function listParameters(
  resource: AnyResourceType,
  includes: string[],
): ParameterObject[] {
  const parameters: ParameterObject[] = [
    {
      name: 'page[number]',
      in: 'query',
      required: false,
      schema: { type: 'integer', minimum: 1, default: 1 },
    },
    {
      name: 'page[size]',
      in: 'query',
      required: false,
      schema: {
        type: 'integer',
        minimum: 1,
        maximum: MAX_PAGE_SIZE,
        default: DEFAULT_PAGE_SIZE,
      },
    },
    ...(resource.list.cursors
      ? (['after', 'before'] as const).map((direction): ParameterObject => ({
          name: `page[${direction}]`,
          in: 'query',
          required: false,
          description: `Extension: the page ${direction} the record whose cursor this is (from a cursor page's \`${direction === 'after' ? 'next' : 'prev'}\` link); not with page[number]. ${direction === 'after' ? 'Empty: the first page, by cursor.' : ''}`,
          schema: { type: 'string' },
        }))
      : []),
    {
      name: 'sort',
      in: 'query',
      required: false,
      description: `Comma-separated attributes, \`-\` for descending. Allowed: ${resource.list.sorts.join(', ')}. Default: ${resource.list.defaultSort}.`,
      schema: { type: 'string', default: resource.list.defaultSort },
    },
  ];
  for (const [name, parser] of Object.entries(resource.list.filters)) {
    parameters.push({
      name: `filter[${name}]`,
      in: 'query',
      required: false,
      description: filterDescription(parser),
      schema: filterSchema(parser),
    });
  }
  if (includes.length > 0) parameters.push(includeParameter(includes));
  return parameters;
}

/** `components.parameters`. */
export const sharedParameters = (): Record<string, ParameterObject> => ({
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Replays the first response to a repeated POST with the same key for 24 hours; the same key with a different body is a 422.',
    schema: { type: 'string', maxLength: 255 },
  },
});

export const IDEMPOTENCY_KEY = {
  $ref: '#/components/parameters/IdempotencyKey',
};

/** `components.headers`. */
export const sharedHeaders = (): Record<string, HeaderObject> => ({
  RateLimitLimit: {
    description: 'Requests allowed per minute.',
    schema: { type: 'integer' },
  },
  RateLimitRemaining: {
    description: 'Requests left in the current minute.',
    schema: { type: 'integer' },
  },
});
