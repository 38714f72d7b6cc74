/**
 * The wording of every 422 about a request field, written once. Each names
 * the field as the client sent it (`name`, `checkout_data.email`) and says
 * what is wrong with it; the pointer says where.
 */
export const invalid = {
  required: (field: string) => `The ${field} is required.`,
  integer: (field: string) => `The ${field} must be an integer.`,
  number: (field: string) => `The ${field} must be a number.`,
  string: (field: string) => `The ${field} must be a string.`,
  boolean: (field: string) => `The ${field} must be true or false.`,
  object: (field: string) => `The ${field} must be an object.`,
  array: (field: string) => `The ${field} must be an array.`,
  notEmpty: (field: string) => `The ${field} must not be empty.`,
  oneOf: (field: string, values: readonly unknown[]) =>
    `The ${field} must be one of: ${values.join(', ')}.`,
  eachOneOf: (field: string, values: readonly unknown[]) =>
    `Each entry of ${field} must be one of: ${values.join(', ')}.`,
  email: (field: string) => `The ${field} must be a valid email address.`,
  url: (field: string) => `The ${field} must be an http(s) URL.`,
  format: (field: string) => `The ${field} has an invalid format.`,
  timestamp: (field: string) =>
    `The ${field} must be an ISO 8601 date-time, or null.`,
  future: (field: string) => `The ${field} must be in the future.`,
  atLeast: (field: string, min: number) =>
    `The ${field} must be at least ${min}.`,
  atMost: (field: string, max: number) => `The ${field} may be at most ${max}.`,
  minLength: (field: string, min: number) =>
    `The ${field} must be at least ${min} characters.`,
  maxLength: (field: string, max: number) =>
    `The ${field} may be at most ${max} characters.`,
  length: (field: string, min: number, max: number) =>
    `The ${field} must be ${min} to ${max} characters.`,
  minItems: (field: string, min: number) =>
    `The ${field} must have at least ${min} ${min === 1 ? 'entry' : 'entries'}.`,
  maxItems: (field: string, max: number) =>
    `The ${field} may have at most ${max} entries.`,
  uniqueItems: (field: string) => `The ${field} must not repeat an entry.`,
  twice: (field: string) =>
    `The ${field} is given twice, with different values.`,
};

/** Integer attributes are PostgreSQL `integer` columns unless a rule says less. */
export const INT32_MAX = 2147483647;
export const INT32_MIN = -2147483648;

/**
 * An integer written as a string, as form-minded clients send it (the
 * Laravel package's `variant_id: "4"`): optional minus, digits, no leading
 * zero, nothing else, so "4.5", "1e3", " 4" and "" stay invalid.
 */
export const INTEGER_STRING = /^-?(?:0|[1-9]\d*)$/;

/** The integer a value stands for (a number, or an integer string), else the value unchanged. */
export function integerOrSame(value: unknown): unknown {
  return typeof value === 'string' && INTEGER_STRING.test(value)
    ? Number(value)
    : value;
}

/** A field's name in messages: its pointer below the attributes, dotted (`links.0.title`). */
export function fieldLabel(path: string): string {
  return path
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}
