import { isCountryCode } from '../../common/country-codes';
import {
  fieldLabel,
  integerOrSame,
  invalid,
} from '../../common/validation-messages';
import type {
  CheckoutData,
  CheckoutOptions,
  ProductOptions,
} from './checkout.entity';
import { CheckoutErrors } from './checkout.errors';

const MAX_TEXT = 5000;
/** The checkout_options colour settings (hex strings). */
export const COLOR_KEYS = [
  'background_color',
  'headings_color',
  'primary_text_color',
  'secondary_text_color',
  'links_color',
  'borders_color',
  'checkbox_color',
  'active_state_color',
  'button_color',
  'button_text_color',
  'terms_privacy_color',
] as const;
const HEX_COLOR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The option objects are read key by key: a known key with a wrong value is
 * a 422 at its field; a key this server does not know is ignored, like an
 * unknown attribute (new optional parameters are backwards-compatible,
 * spec 9), and is not stored or echoed.
 */
function fail(path: string, detail: (field: string) => string): never {
  throw CheckoutErrors.invalidAttribute(path, detail(fieldLabel(path)));
}

/** PHP-backed clients send an empty object as `[]`; both mean "nothing". */
function objectOrEmpty(value: unknown, path: string): Json {
  if (value === undefined || value === null) return {};
  if (Array.isArray(value) && value.length === 0) return {};
  if (!isObject(value)) fail(path, invalid.object);
  return value;
}

function text(value: unknown, path: string): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') fail(path, invalid.string);
  if (value.length > MAX_TEXT)
    fail(path, (field) => invalid.maxLength(field, MAX_TEXT));
  return value;
}

function httpUrl(value: unknown, path: string): string {
  const raw = text(value, path);
  if (raw === '') return '';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    fail(path, invalid.url);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    fail(path, invalid.url);
  return raw;
}

function flag(value: unknown, fallback: boolean, path: string): boolean {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean') fail(path, invalid.boolean);
  return value;
}

function positiveInt(value: unknown, path: string, max = 2147483647): number {
  const number = integerOrSame(value);
  if (typeof number !== 'number' || !Number.isInteger(number))
    fail(path, invalid.integer);
  if (number < 1) fail(path, (field) => invalid.atLeast(field, 1));
  if (number > max) fail(path, (field) => invalid.atMost(field, max));
  return number;
}

export function productOptions(raw: unknown): ProductOptions {
  const path = 'product_options';
  const value = objectOrEmpty(raw, path);
  const media = value.media ?? [];
  if (!Array.isArray(media)) fail(`${path}/media`, invalid.array);
  const enabled = value.enabled_variants ?? [];
  if (!Array.isArray(enabled)) fail(`${path}/enabled_variants`, invalid.array);
  return {
    name: text(value.name, `${path}/name`),
    description: text(value.description, `${path}/description`),
    media: media.map((url, i) => httpUrl(url, `${path}/media/${i}`)),
    redirect_url: httpUrl(value.redirect_url, `${path}/redirect_url`),
    receipt_button_text: text(
      value.receipt_button_text,
      `${path}/receipt_button_text`,
    ),
    receipt_link_url: httpUrl(
      value.receipt_link_url,
      `${path}/receipt_link_url`,
    ),
    receipt_thank_you_note: text(
      value.receipt_thank_you_note,
      `${path}/receipt_thank_you_note`,
    ),
    enabled_variants: [
      ...new Set(
        enabled.map((id, i) =>
          positiveInt(id, `${path}/enabled_variants/${i}`),
        ),
      ),
    ],
    confirmation_title: text(
      value.confirmation_title,
      `${path}/confirmation_title`,
    ),
    confirmation_message: text(
      value.confirmation_message,
      `${path}/confirmation_message`,
    ),
    confirmation_button_text: text(
      value.confirmation_button_text,
      `${path}/confirmation_button_text`,
    ),
  };
}

const CHECKOUT_OPTION_FLAGS = {
  embed: false,
  media: true,
  logo: true,
  desc: true,
  discount: true,
  skip_trial: false,
  subscription_preview: true,
} as const;

export function checkoutOptions(raw: unknown): CheckoutOptions {
  const path = 'checkout_options';
  const value = objectOrEmpty(raw, path);
  const flags = Object.fromEntries(
    Object.entries(CHECKOUT_OPTION_FLAGS).map(([key, fallback]) => [
      key,
      flag(value[key], fallback, `${path}/${key}`),
    ]),
  ) as Record<keyof typeof CHECKOUT_OPTION_FLAGS, boolean>;
  const options: CheckoutOptions = {
    embed: flags.embed,
    media: flags.media,
    logo: flags.logo,
    desc: flags.desc,
    discount: flags.discount,
    skip_trial: flags.skip_trial,
    quantity:
      value.quantity === undefined || value.quantity === null
        ? 1
        : positiveInt(value.quantity, `${path}/quantity`, 1000),
    subscription_preview: flags.subscription_preview,
  };
  // Optional keys appear in the response only when they were supplied (as upstream).
  if (value.dark !== undefined && value.dark !== null)
    options.dark = flag(value.dark, false, `${path}/dark`);
  if (value.send_receipt !== undefined && value.send_receipt !== null)
    options.send_receipt = flag(
      value.send_receipt,
      true,
      `${path}/send_receipt`,
    );
  for (const key of COLOR_KEYS) {
    if (value[key] === undefined || value[key] === null) continue;
    const color = value[key];
    if (typeof color !== 'string' || !HEX_COLOR.test(color))
      fail(
        `${path}/${key}`,
        (field) => `The ${field} must be a hex colour such as #7047EB.`,
      );
    options[key] = color;
  }
  return options;
}

const given = (value: unknown) => value !== undefined && value !== null;

/**
 * `billing_address.country` / `.zip`: the nested object, or the flat dotted
 * key the spec lists literally and the Go client sends. Both may be given
 * only with the same value. Returns the value and the field it came from.
 */
function addressPart(
  data: Json,
  address: Json,
  key: 'country' | 'zip',
  path: string,
): [unknown, string] {
  const nested = address[key];
  const dotted = data[`billing_address.${key}`];
  const dottedAt = `${path}/billing_address.${key}`;
  if (given(nested) && given(dotted) && nested !== dotted)
    fail(dottedAt, invalid.twice);
  return given(nested) || !given(dotted)
    ? [nested, `${path}/billing_address/${key}`]
    : [dotted, dottedAt];
}

export function checkoutData(raw: unknown): CheckoutData {
  const path = 'checkout_data';
  const value = objectOrEmpty(raw, path);
  const address = objectOrEmpty(
    value.billing_address,
    `${path}/billing_address`,
  );
  const [countryValue, countryAt] = addressPart(
    value,
    address,
    'country',
    path,
  );
  const country = text(countryValue, countryAt);
  if (country !== '' && !isCountryCode(country))
    fail(
      countryAt,
      (field) => `The ${field} must be an ISO 3166-1 alpha-2 code such as US.`,
    );
  const [zip, zipAt] = addressPart(value, address, 'zip', path);
  const quantities = value.variant_quantities ?? [];
  if (!Array.isArray(quantities))
    fail(`${path}/variant_quantities`, invalid.array);
  return {
    email: text(value.email, `${path}/email`),
    name: text(value.name, `${path}/name`),
    billing_address: {
      country,
      zip: text(zip, zipAt),
    },
    tax_number: text(value.tax_number, `${path}/tax_number`),
    discount_code: text(value.discount_code, `${path}/discount_code`),
    custom: objectOrEmpty(value.custom, `${path}/custom`),
    variant_quantities: quantities.map((entry, i) => {
      const at = `${path}/variant_quantities/${i}`;
      if (!isObject(entry)) fail(at, invalid.object);
      return {
        variant_id: positiveInt(entry.variant_id, `${at}/variant_id`),
        quantity: positiveInt(entry.quantity, `${at}/quantity`, 1000),
      };
    }),
  };
}
