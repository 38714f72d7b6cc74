import { ErrorDetail } from '../../common/app-error';
import { isCountryCode } from '../../common/country-codes';
import { BuyerAmount } from './unit-price';
import { CheckoutErrors, invalidInput } from './checkout.errors';

// Loose on purpose (RFC 5322 allows far more); the customer module checks it too.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The buyer's input, from the page's form or a JSON POST; everything may be missing. */
export interface PurchaseInput {
  email?: string;
  name?: string;
  country?: string;
  zip?: string;
  /** A US state or Canadian province (`CA`, `ON`), for their sales taxes. */
  state?: string;
  taxNumber?: string;
  discountCode?: string;
  variantId?: string;
  quantity?: string;
  cardNumber?: string;
  /** A pay-what-you-want amount (see BuyerAmount for its units). */
  amount?: BuyerAmount;
}

export type Body = Record<string, unknown>;

export const isObject = (value: unknown): value is Body =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function field(body: Body, name: string, at = ''): string | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  throw CheckoutErrors.notAString(`${at}${name}`, name);
}

/** Form fields arrive flat: `billing_address[country]`; `amount` in major units. */
export function formInput(body: Body): PurchaseInput {
  const text = (name: string) => {
    const value = body[name];
    return typeof value === 'string' ? value : undefined;
  };
  const amount = text('amount');
  return {
    email: text('email'),
    name: text('name'),
    country: text('billing_address[country]'),
    zip: text('billing_address[zip]'),
    state: text('billing_address[state]'),
    taxNumber: text('tax_number'),
    discountCode: text('discount_code'),
    variantId: text('variant_id'),
    quantity: text('quantity'),
    cardNumber: text('card_number'),
    amount: amount !== undefined ? { value: amount, unit: 'major' } : undefined,
  };
}

/**
 * JSON: `billing_address: {country, zip, state}` (flat bracket keys are accepted
 * too); `custom_price` in integer cents, as a checkout's own.
 */
export function jsonInput(body: Body): PurchaseInput {
  const address = body.billing_address;
  if (address !== undefined && address !== null && !isObject(address))
    throw CheckoutErrors.billingAddressNotObject();
  // The page's field is in major units; taking it here would guess at units.
  if (body.amount !== undefined) throw CheckoutErrors.amountInJson();
  const nested = (name: 'country' | 'zip' | 'state') =>
    address
      ? field(address, name, 'billing_address/')
      : field(body, `billing_address[${name}]`);
  const customPrice = field(body, 'custom_price');
  return {
    email: field(body, 'email'),
    name: field(body, 'name'),
    country: nested('country'),
    zip: nested('zip'),
    state: nested('state'),
    taxNumber: field(body, 'tax_number'),
    discountCode: field(body, 'discount_code'),
    variantId: field(body, 'variant_id'),
    quantity: field(body, 'quantity'),
    cardNumber: field(body, 'card_number'),
    amount:
      customPrice !== undefined
        ? { value: customPrice, unit: 'cents' }
        : undefined,
  };
}

/** The buyer's details, all checked at once so a form shows every problem. */
export function buyerOf(input: PurchaseInput) {
  const errors: ErrorDetail[] = [];
  const email = input.email?.trim() ?? '';
  const name = input.name?.trim() ?? '';
  const country = input.country?.trim().toUpperCase() ?? '';
  if (!EMAIL.test(email) || email.length > 255)
    errors.push(invalidInput('email', 'Enter a valid email address.'));
  if (!name || name.length > 255)
    errors.push(
      invalidInput('name', 'Enter your name (at most 255 characters).'),
    );
  if (!isCountryCode(country))
    errors.push(
      invalidInput(
        'billing_address/country',
        'Choose the billing country (a two-letter code such as US).',
      ),
    );
  if ((input.zip?.length ?? 0) > 32)
    errors.push(
      invalidInput('billing_address/zip', 'The ZIP code is too long.'),
    );
  if ((input.taxNumber?.length ?? 0) > 64)
    errors.push(invalidInput('tax_number', 'The tax number is too long.'));
  if (errors.length > 0) throw CheckoutErrors.invalidPurchase(errors);
  return { email, name, country };
}
