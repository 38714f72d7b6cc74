import { getMetadataStorage, ValidationTypes } from 'class-validator';
import type { ValidationError } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata.js';
import type { ErrorDetail } from '../../common/app-error';
import {
  fieldLabel,
  INT32_MAX,
  INT32_MIN,
  integerOrSame,
  invalid,
} from '../../common/validation-messages';
import { HttpErrorCodes } from '../errors/http-error-codes';

type Constructor = abstract new (...args: never[]) => object;

/** The validator's name: built-ins carry it on the metadata, `ValidateBy` on its constraint class. */
export function validatorName(
  metadata: ValidationMetadata,
): string | undefined {
  if (metadata.name) return metadata.name;
  const constraints = getMetadataStorage().getTargetValidatorConstraints(
    metadata.constraintCls,
  );
  return constraints[0]?.name;
}

const byClass = new WeakMap<Constructor, Map<string, ValidationMetadata[]>>();

/** A class's validation metadata (inherited included) by property, in declaration order. */
export function propertyRules(
  target: Constructor,
): Map<string, ValidationMetadata[]> {
  let rules = byClass.get(target);
  if (!rules) {
    rules = new Map();
    const metadatas = getMetadataStorage().getTargetValidationMetadatas(
      target as unknown as new () => object,
      '',
      true,
      false,
    );
    for (const metadata of metadatas) {
      const list = rules.get(metadata.propertyName) ?? [];
      list.push(metadata);
      rules.set(metadata.propertyName, list);
    }
    byClass.set(target, rules);
  }
  return rules;
}

type Attributes = Record<string, unknown>;

const isObject = (value: unknown): value is Attributes =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Prepares validated attributes in place, for every class that validates
 * them (nested ones too): integer attributes take integer strings, and an
 * integer attribute with no `@Max`/`@Min` of its own is bounded by the
 * `integer` column it is stored in. Returns the out-of-range ones (class
 * validation cannot see a bound the class does not declare).
 */
export function prepareIntegers(
  instance: object,
  pointer: string,
  root = pointer,
): ErrorDetail[] {
  const errors: ErrorDetail[] = [];
  const target = instance as Attributes;
  for (const [property, rules] of propertyRules(
    instance.constructor as Constructor,
  )) {
    const value = target[property];
    if (value === undefined || value === null) continue;
    const at = `${pointer}/${property}`;
    const names = new Set(rules.map(validatorName));
    for (const rule of rules) {
      if (rule.type === ValidationTypes.NESTED_VALIDATION) {
        const nested = Array.isArray(value) ? value : [value];
        nested.forEach((item: unknown, i) => {
          if (isObject(item) && item.constructor !== Object)
            errors.push(
              ...prepareIntegers(
                item,
                Array.isArray(value) ? `${at}/${i}` : at,
                root,
              ),
            );
        });
      } else if (validatorName(rule) === 'isInt') {
        target[property] =
          rule.each && Array.isArray(value)
            ? value.map(integerOrSame)
            : integerOrSame(value);
      }
    }
    const number = target[property];
    if (!names.has('isInt') || typeof number !== 'number') continue;
    const label = fieldLabel(at.slice(root.length + 1));
    if (!names.has('max') && number > INT32_MAX)
      errors.push({
        detail: invalid.atMost(label, INT32_MAX),
        source: { pointer: at },
        code: HttpErrorCodes.invalidAttribute,
      });
    else if (!names.has('min') && number < INT32_MIN)
      errors.push({
        detail: invalid.atLeast(label, INT32_MIN),
        source: { pointer: at },
        code: HttpErrorCodes.invalidAttribute,
      });
  }
  return errors;
}

/**
 * Which failing check speaks for a field: presence, then type, then
 * emptiness, then value (enumerations and formats), then size. A field
 * with a wrong type is told its type, not that it is too long.
 */
const RANK: Record<string, number> = {
  isDefined: 0,
  isString: 1,
  isInt: 1,
  isNumber: 1,
  isBoolean: 1,
  isObject: 1,
  isArray: 1,
  // After isArray: `links: "x"` is told it is not an array, not about its entries.
  nestedValidation: 1.5,
  isNotEmpty: 2,
  min: 4,
  max: 4,
  minLength: 4,
  maxLength: 4,
  isLength: 4,
  arrayMinSize: 4,
  arrayMaxSize: 4,
};
const VALUE_RANK = 3;

function message(
  name: string,
  rule: ValidationMetadata | undefined,
  field: string,
  given: string,
): string {
  const [first, second] = (rule?.constraints ?? []) as unknown[];
  const each = rule?.each === true;
  switch (name) {
    case 'isDefined':
      return invalid.required(field);
    case 'isString':
      return invalid.string(field);
    case 'isInt':
      return invalid.integer(field);
    case 'isNumber':
      return invalid.number(field);
    case 'isBoolean':
      return invalid.boolean(field);
    case 'isObject':
      return invalid.object(field);
    case 'isArray':
      return invalid.array(field);
    case 'nestedValidation':
      // Reported at the entry (`links/0`) when an array's entry is no object.
      return invalid.object(field);
    case 'isNotEmpty':
      return invalid.notEmpty(field);
    case 'isIn':
      return each
        ? invalid.eachOneOf(field, first as unknown[])
        : invalid.oneOf(field, first as unknown[]);
    case 'isEmail':
      return invalid.email(field);
    case 'isUrl':
      return invalid.url(field);
    case 'arrayUnique':
      return invalid.uniqueItems(field);
    case 'min':
      return invalid.atLeast(field, first as number);
    case 'max':
      return invalid.atMost(field, first as number);
    case 'minLength':
      return invalid.minLength(field, first as number);
    case 'maxLength':
      return invalid.maxLength(field, first as number);
    case 'isLength':
      return second === undefined
        ? invalid.minLength(field, first as number)
        : invalid.length(field, first as number, second as number);
    case 'arrayMinSize':
      return invalid.minItems(field, first as number);
    case 'arrayMaxSize':
      return invalid.maxItems(field, first as number);
    case 'matches':
      // A pattern says nothing to a client; the class's own words do.
      return rule?.message ? given : invalid.format(field);
    default:
      // Custom validators (ValidateBy) word their own failure.
      return given;
  }
}

/** The one detail that speaks for a field that failed `constraints`. */
function fieldDetail(error: ValidationError, field: string): string {
  if (error.value === undefined) return invalid.required(field);
  const rules =
    error.target !== undefined
      ? propertyRules(error.target.constructor as Constructor).get(
          error.property,
        )
      : undefined;
  const ruleNamed = (name: string) =>
    rules?.find((rule) => validatorName(rule) === name);
  const [name] = Object.keys(error.constraints ?? {}).sort(
    (a, b) => (RANK[a] ?? VALUE_RANK) - (RANK[b] ?? VALUE_RANK),
  );
  return message(name, ruleNamed(name), field, error.constraints![name]);
}

/**
 * class-validator's errors as JSON:API error details: one per field, the
 * check that matters most (see RANK), worded by `invalid`, so no
 * validator's default text reaches a client.
 */
export function validationDetails(
  errors: ValidationError[],
  pointer: string,
  root = pointer,
): ErrorDetail[] {
  return errors.flatMap((error) => {
    const at = `${pointer}/${error.property}`;
    const own =
      error.constraints && Object.keys(error.constraints).length > 0
        ? [
            {
              detail: fieldDetail(error, fieldLabel(at.slice(root.length + 1))),
              source: { pointer: at },
              code: HttpErrorCodes.invalidAttribute,
            },
          ]
        : [];
    return [...own, ...validationDetails(error.children ?? [], at, root)];
  });
}
