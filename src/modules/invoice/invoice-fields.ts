import { plainToInstance, Transform } from 'class-transformer';
import {
  IsOptional,
  IsString,
  MaxLength,
  ValidateBy,
  validateSync,
} from 'class-validator';
import type { RawQuery } from '../../common/list-query';
import { InvoiceFields } from './invoice-view';
import { InvoiceErrors } from './invoice.errors';

/** The fields in the order they appear in links (and in the hashed field set). */
export const INVOICE_FIELD_NAMES = [
  'name',
  'address',
  'city',
  'state',
  'zip_code',
  'country',
  'notes',
  'locale',
] as const satisfies readonly (keyof InvoiceFields)[];

// Line breaks survive cleaning only in multi-line fields; any other control character is refused.
const CONTROL = /(?!\n)\p{Cc}/u;

/**
 * Trims, unifies line breaks (single-line fields become one line) and maps
 * blank to absent. Numbers are accepted for zip_code, which the SDK types
 * as a number.
 */
function clean(multiLine: boolean, numeric = false) {
  return Transform(({ value }: { value: unknown }) => {
    if (numeric && typeof value === 'number' && Number.isFinite(value)) {
      value = String(value);
    }
    if (typeof value !== 'string') return value;
    let text = value.replace(/\r\n?/g, '\n').replace(/\t/g, ' ');
    text = multiLine
      ? text
          .split('\n')
          .map((line) => line.trim())
          .join('\n')
          .replace(/\n{3,}/g, '\n\n')
      : text.replace(/\s+/g, ' ');
    text = text.trim();
    return text === '' ? undefined : text;
  });
}

const NoControlCharacters = (label: string) =>
  ValidateBy({
    name: 'noControlCharacters',
    validator: {
      validate: (value: unknown) =>
        typeof value !== 'string' || !CONTROL.test(value),
      defaultMessage: () => `The ${label} contains control characters.`,
    },
  });

const IsSupportedLocale = () =>
  ValidateBy({
    name: 'isSupportedLocale',
    validator: {
      validate: (value: unknown) => {
        if (typeof value !== 'string') return false;
        try {
          return Intl.NumberFormat.supportedLocalesOf([value]).length === 1;
        } catch {
          return false;
        }
      },
      defaultMessage: () =>
        'The locale must be a supported BCP 47 language tag such as en-US.',
    },
  });

function text(label: string, max: number, multiLine = false, numeric = false) {
  const decorators = [
    clean(multiLine, numeric),
    IsOptional(),
    IsString({ message: `The ${label} must be a string.` }),
    MaxLength(max, {
      message: `The ${label} may be at most ${max} characters.`,
    }),
    NoControlCharacters(label),
  ];
  return (target: object, property: string) =>
    decorators.forEach((decorate) => decorate(target, property));
}

/** generate-invoice parameters (spec 4.6 and 4.9; `locale` as in the reference). */
export class InvoiceFieldsAttributes implements InvoiceFields {
  @text('name', 255)
  name?: string;

  @text('address', 500, true)
  address?: string;

  @text('city', 255)
  city?: string;

  @text('state', 255)
  state?: string;

  @text('zip code', 32, false, true)
  zip_code?: string;

  @text('country', 255)
  country?: string;

  @text('notes', 1000, true)
  notes?: string;

  @clean(false)
  @IsOptional()
  @IsString({ message: 'The locale must be a string.' })
  @MaxLength(35, { message: 'The locale may be at most 35 characters.' })
  @IsSupportedLocale()
  locale?: string;
}

/** The given fields only, in a fixed order, with the locale canonicalized. */
function canonical(attributes: InvoiceFieldsAttributes): InvoiceFields {
  const fields: InvoiceFields = {};
  for (const name of INVOICE_FIELD_NAMES) {
    const value = attributes[name];
    if (value !== undefined) fields[name] = value;
  }
  if (fields.locale) fields.locale = Intl.getCanonicalLocales(fields.locale)[0];
  return fields;
}

/**
 * The fields from the query string. An unknown or repeated parameter is a
 * 400; an invalid value a 422 naming the parameter. `ignore` names
 * parameters that belong to the route (e.g. `signature`).
 */
export function invoiceFieldsFromQuery(
  query: RawQuery,
  ignore: string[] = [],
): InvoiceFields {
  const raw: Record<string, string> = {};
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || ignore.includes(name)) continue;
    if (!(INVOICE_FIELD_NAMES as readonly string[]).includes(name)) {
      throw InvoiceErrors.unknownParameter(name);
    }
    if (Array.isArray(value)) {
      throw InvoiceErrors.repeatedParameter(name);
    }
    raw[name] = value;
  }
  const attributes = plainToInstance(InvoiceFieldsAttributes, raw);
  const errors = validateSync(attributes, {
    validationError: { target: false, value: false },
  });
  if (errors.length > 0) {
    throw InvoiceErrors.invalidFields(
      errors.map((error) => ({
        detail: Object.values(error.constraints ?? {})[0] ?? 'Invalid value.',
        parameter: error.property,
      })),
    );
  }
  return canonical(attributes);
}

/**
 * generate-invoice fields from the query string and, when the request has
 * a JSON:API body, its parsed attributes. A field given in both places
 * must agree.
 */
export function invoiceFieldsFromRequest(
  query: RawQuery,
  attributes: InvoiceFieldsAttributes | undefined,
): InvoiceFields {
  const fromQuery = invoiceFieldsFromQuery(query);
  if (!attributes) return fromQuery;
  const fromBody = canonical(attributes);
  const merged: InvoiceFields = {};
  for (const name of INVOICE_FIELD_NAMES) {
    const a = fromQuery[name];
    const b = fromBody[name];
    if (a !== undefined && b !== undefined && a !== b) {
      throw InvoiceErrors.queryAndBodyDisagree(name);
    }
    const value = a ?? b;
    if (value !== undefined) merged[name] = value;
  }
  return merged;
}

/** The fields as link query parameters, in the fixed order. */
export function invoiceFieldsQuery(fields: InvoiceFields): URLSearchParams {
  const params = new URLSearchParams();
  for (const name of INVOICE_FIELD_NAMES) {
    const value = fields[name];
    if (value !== undefined) params.append(name, value);
  }
  return params;
}
