import type { ReferenceObject, SchemaObject } from '@nestjs/swagger';

export type { SchemaObject };
type Schema = SchemaObject | ReferenceObject;

/**
 * Small builders for the JSON Schema (2020-12, as OpenAPI 3.1 uses it) of
 * attributes, so each resource's `*.openapi.ts` reads like the wire reference.
 */
export const str = (description?: string): SchemaObject => ({
  type: 'string',
  ...(description ? { description } : {}),
});
export const int = (description?: string): SchemaObject => ({
  type: 'integer',
  ...(description ? { description } : {}),
});
export const num = (description?: string): SchemaObject => ({
  type: 'number',
  ...(description ? { description } : {}),
});
export const bool = (description?: string): SchemaObject => ({
  type: 'boolean',
  ...(description ? { description } : {}),
});
/** `YYYY-MM-DDTHH:MM:SS.ffffffZ`, as `formatTimestamp` renders it. */
export const ts = (description?: string): SchemaObject => ({
  type: 'string',
  format: 'date-time',
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{6}Z$',
  ...(description ? { description } : {}),
});
export const url = (description?: string): SchemaObject => ({
  type: 'string',
  format: 'uri',
  ...(description ? { description } : {}),
});
export const uuid = (description?: string): SchemaObject => ({
  type: 'string',
  format: 'uuid',
  ...(description ? { description } : {}),
});
export const oneOf = (...values: string[]): SchemaObject => ({
  type: 'string',
  enum: values,
});
export const array = (items: Schema): SchemaObject => ({
  type: 'array',
  items,
});

/** The same schema, or null. */
export function nullable(schema: Schema): SchemaObject {
  if ('$ref' in schema || schema.type === undefined) {
    return { anyOf: [schema, { type: 'null' }] };
  }
  const types = [schema.type].flat() as string[];
  const copy: SchemaObject = { ...schema, type: [...types, 'null'] };
  if (schema.enum) copy.enum = [...schema.enum, null];
  return copy;
}

/**
 * An object whose keys are exactly these (the SDK asserts key counts):
 * every key required, no other key allowed. `optional` keys may be absent.
 */
export function exact(
  properties: Record<string, Schema>,
  options: { optional?: string[]; description?: string } = {},
): SchemaObject {
  const optional = new Set(options.optional ?? []);
  return {
    type: 'object',
    ...(options.description ? { description: options.description } : {}),
    properties,
    required: Object.keys(properties).filter((key) => !optional.has(key)),
    additionalProperties: false,
  };
}

/** A free-form object (custom data the caller chose). */
export const freeform = (description?: string): SchemaObject => ({
  type: 'object',
  additionalProperties: true,
  ...(description ? { description } : {}),
});
