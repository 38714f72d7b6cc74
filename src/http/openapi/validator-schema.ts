import type { ReferenceObject, SchemaObject } from '@nestjs/swagger';
import { defaultMetadataStorage } from 'class-transformer/cjs/storage.js';
import { getMetadataStorage, ValidationTypes } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata.js';
import { validatorName } from '../json-api/attribute-validation';

type Constructor = new () => object;

/**
 * Whether the property may be left out, and whether null passes: `@IsOptional`
 * allows both; a `@ValidateIf` predicate is asked directly.
 */
function presence(metadatas: ValidationMetadata[], property: string) {
  let optional = false;
  let nullAllowed = false;
  for (const metadata of metadatas) {
    if (metadata.type !== ValidationTypes.CONDITIONAL_VALIDATION) continue;
    const condition = metadata.constraints[0] as (
      object: object,
      value: unknown,
    ) => boolean;
    if (!condition({ [property]: undefined }, undefined)) optional = true;
    if (!condition({ [property]: null }, null)) nullAllowed = true;
  }
  return { optional, nullAllowed };
}

function propertySchema(
  target: Constructor,
  property: string,
  metadatas: ValidationMetadata[],
  seen: Set<Constructor>,
): SchemaObject | ReferenceObject {
  const schema: SchemaObject = {};
  let items: SchemaObject | ReferenceObject | undefined;
  const each = (metadata: ValidationMetadata) => metadata.each;
  const apply = (into: SchemaObject, metadata: ValidationMetadata) => {
    const [first, second] = metadata.constraints ?? [];
    switch (validatorName(metadata)) {
      case 'isString':
        into.type = 'string';
        break;
      case 'isInt':
        into.type = 'integer';
        break;
      case 'isNumber':
        into.type = 'number';
        break;
      case 'isBoolean':
        into.type = 'boolean';
        break;
      case 'isObject':
        into.type = 'object';
        break;
      case 'isArray':
        into.type = 'array';
        break;
      case 'isIn':
        into.enum = first as string[];
        break;
      case 'isEmail':
        into.type = 'string';
        into.format = 'email';
        break;
      case 'isUrl':
        into.type = 'string';
        into.format = 'uri';
        break;
      case 'isUuid':
        into.type = 'string';
        into.format = 'uuid';
        break;
      case 'isNotEmpty':
        if (into.type === 'string' || into.type === undefined)
          into.minLength = 1;
        break;
      case 'maxLength':
        into.maxLength = first as number;
        break;
      case 'minLength':
        into.minLength = first as number;
        break;
      case 'isLength':
        into.minLength = first as number;
        if (second !== undefined) into.maxLength = second as number;
        break;
      case 'min':
        into.minimum = first as number;
        break;
      case 'max':
        into.maximum = first as number;
        break;
      case 'matches':
        into.pattern = (first as RegExp).source;
        break;
      case 'arrayMinSize':
        into.minItems = first as number;
        break;
      case 'arrayMaxSize':
        into.maxItems = first as number;
        break;
      default:
        break;
    }
  };
  for (const metadata of metadatas) {
    if (metadata.type === ValidationTypes.NESTED_VALIDATION) {
      const nested = defaultMetadataStorage.findTypeMetadata(target, property);
      const type = nested?.typeFunction() as Constructor | undefined;
      const nestedSchema = type
        ? validatorSchema(type, seen)
        : { type: 'object' as const };
      if (metadata.each) items = nestedSchema;
      else Object.assign(schema, nestedSchema);
      continue;
    }
    if (metadata.type !== ValidationTypes.CUSTOM_VALIDATION) continue;
    if (each(metadata)) {
      items ??= {};
      apply(items as SchemaObject, metadata);
    } else {
      apply(schema, metadata);
    }
  }
  if (items) {
    schema.type = 'array';
    schema.items = items;
  }
  // A date given as a string is the usual case for these untyped fields.
  if (schema.type === undefined && schema.enum === undefined) {
    schema.description = 'Checked by the service.';
  }
  return schema;
}

/**
 * The JSON Schema of a class-validator class, read from the same metadata
 * that validates request bodies, so the document cannot drift from the
 * validation. Custom validators become unconstrained properties. Other
 * properties are allowed: the write layer ignores them (and takes integer
 * strings where an integer is documented).
 */
export function validatorSchema(
  target: Constructor,
  seen = new Set<Constructor>(),
): SchemaObject {
  if (seen.has(target)) return { type: 'object' };
  seen.add(target);
  const metadatas = getMetadataStorage().getTargetValidationMetadatas(
    target,
    '',
    true,
    false,
  );
  const byProperty = new Map<string, ValidationMetadata[]>();
  for (const metadata of metadatas) {
    const list = byProperty.get(metadata.propertyName) ?? [];
    list.push(metadata);
    byProperty.set(metadata.propertyName, list);
  }
  const properties: Record<string, SchemaObject | ReferenceObject> = {};
  const required: string[] = [];
  for (const [property, list] of byProperty) {
    const { optional, nullAllowed } = presence(list, property);
    let schema = propertySchema(target, property, list, seen);
    if (nullAllowed && 'type' in schema && schema.type !== undefined) {
      schema = {
        ...schema,
        type: [schema.type, 'null'].flat(),
        ...(schema.enum ? { enum: [...schema.enum, null] } : {}),
      };
    }
    properties[property] = schema;
    if (!optional) required.push(property);
  }
  seen.delete(target);
  return {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
  };
}
