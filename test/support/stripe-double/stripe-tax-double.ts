import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { invalid, missing, noSuch } from './errors';
import {
  Component,
  EBOOK_RATES,
  EU,
  RATES,
  TAX_PARAMS,
  validVat,
  ZIP_STATES,
} from './stripe-tax-rates';

type StripeObject = Record<string, unknown> & { id: string; object: string };
type Params = Record<string, unknown>;

/** What the tax routes need of a Stripe account kept by the double. */
export interface TaxAccount {
  livemode: boolean;
  objects: Map<string, StripeObject>;
}

const FIXTURES = (
  JSON.parse(
    readFileSync(
      join(process.cwd(), 'test/support/stripe-double/fixtures.json'),
      'utf8',
    ),
  ) as { resources: Record<string, StripeObject> }
).resources;

const now = () => Math.floor(Date.now() / 1000);
const newId = (prefix: string) =>
  `${prefix}_${randomBytes(12).toString('base64url').replace(/[-_]/g, 'x')}`;

function integerOf(value: unknown, param: string): number {
  const n = typeof value === 'string' ? Number(value) : NaN;
  if (!/^-?\d+$/.test(String(value)) || !Number.isSafeInteger(n))
    throw invalid(`Invalid integer: ${String(value)}`, { param });
  return n;
}

/**
 * Stripe Tax in the double: calculations from the small rate table above
 * (only where the account is registered, reverse charge for a valid EU or
 * UK VAT number from another country than the head office's), tax
 * transactions from calculations (reference unique per account) and their
 * full or partial reversals, in Stripe's shapes (fixtures.json).
 */
export class StripeTaxDouble {
  private readonly settings = new WeakMap<
    TaxAccount,
    { headOffice: string; registrations: Set<string> | null }
  >();
  /** Rates an account's calculations use instead of the table's (a rate change). */
  private readonly changedRates = new WeakMap<
    TaxAccount,
    Record<string, Component[]>
  >();
  /** How much of each transaction (with tax) its reversals took back. */
  private readonly reversedGross = new Map<string, number>();

  /** The account's head office country and where it is registered (null: everywhere in the table). */
  configure(
    account: TaxAccount,
    headOffice: string,
    registrations: string[] | null = null,
  ) {
    this.settings.set(account, {
      headOffice,
      registrations: registrations ? new Set(registrations) : null,
    });
  }

  /** From now on, the account's calculations tax `key` (`DE`, `US-TX`) at these rates. */
  changeRates(account: TaxAccount, rates: Record<string, Component[]>) {
    this.changedRates.set(account, {
      ...this.changedRates.get(account),
      ...rates,
    });
  }

  route(
    account: TaxAccount,
    method: string,
    path: string,
    params: Params,
  ): StripeObject | null {
    const pattern = `${method} ${path}`;
    const allowed = TAX_PARAMS[pattern];
    if (!allowed) return null;
    const unknown = Object.keys(params).find((p) => !allowed.includes(p));
    if (unknown)
      throw invalid(`Received unknown parameter: ${unknown}`, {
        code: 'parameter_unknown',
        param: unknown,
      });
    switch (pattern) {
      case 'POST /v1/tax/calculations':
        return this.calculate(account, params);
      case 'POST /v1/tax/transactions/create_from_calculation':
        return this.fromCalculation(account, params);
      default:
        return this.reverse(account, params);
    }
  }

  private calculate(account: TaxAccount, params: Params): StripeObject {
    const currency = params.currency;
    if (typeof currency !== 'string' || !currency) throw missing('currency');
    const details = params.customer_details as Params | undefined;
    if (!details) throw missing('customer_details');
    const address = details.address as Record<string, string> | undefined;
    if (!address?.country) throw missing('customer_details[address][country]');
    const source = details.address_source;
    if (source !== undefined && source !== 'billing' && source !== 'shipping')
      throw invalid(`Invalid address_source: ${JSON.stringify(source)}`, {
        param: 'customer_details[address_source]',
      });
    const country = address.country.toUpperCase();
    let state = address.state?.toUpperCase() || null;
    if (country === 'US') {
      if (!address.postal_code)
        throw invalid(
          'Your customer’s address is missing a postal code, which is required for tax calculation in the United States.',
          {
            code: 'customer_tax_location_invalid',
            param: 'customer_details[address][postal_code]',
          },
        );
      state ??=
        ZIP_STATES.find(([re]) => re.test(address.postal_code))?.[1] ?? null;
    }
    const taxIds = (details.tax_ids ?? []) as { type: string; value: string }[];
    for (const [i, id] of taxIds.entries())
      if (!id?.type || !id.value)
        throw missing(`customer_details[tax_ids][${i}][value]`);
    const items = params.line_items as Params[] | undefined;
    if (!Array.isArray(items) || items.length === 0)
      throw missing('line_items');
    const settings = this.settings.get(account) ?? {
      headOffice: 'US',
      registrations: null,
    };
    const rates = { ...RATES, ...this.changedRates.get(account) };
    const key =
      state && rates[`${country}-${state}`] ? `${country}-${state}` : country;
    const registered =
      !settings.registrations ||
      settings.registrations.has(country) ||
      settings.registrations.has(key) ||
      (EU.has(country) && settings.registrations.has('EU'));
    const reverseCharge =
      country !== settings.headOffice &&
      (EU.has(country) || country === 'GB') &&
      taxIds.some(
        (id) =>
          (id.type === 'eu_vat' || id.type === 'gb_vat') &&
          validVat(country, id.value),
      );
    const breakdown: Params[] = [];
    const lineItems: StripeObject[] = [];
    let exclusive = 0;
    let inclusive = 0;
    let total = 0;
    for (const [i, item] of items.entries()) {
      const amount = integerOf(item.amount, `line_items[${i}][amount]`);
      if (amount < 0)
        throw invalid('Amount must be non-negative.', {
          param: `line_items[${i}][amount]`,
        });
      if (typeof item.reference !== 'string' || !item.reference)
        throw missing(`line_items[${i}][reference]`);
      const code = (item.tax_code as string | undefined) ?? 'txcd_10000000';
      if (!/^txcd_\d{8}$/.test(code))
        throw invalid(`Invalid tax code: ${code}`, {
          param: `line_items[${i}][tax_code]`,
        });
      const behavior = (item.tax_behavior as string | undefined) ?? 'exclusive';
      if (behavior !== 'inclusive' && behavior !== 'exclusive')
        throw invalid(`Invalid tax_behavior: ${behavior}`, {
          param: `line_items[${i}][tax_behavior]`,
        });
      const quantity =
        item.quantity === undefined
          ? 1
          : integerOf(item.quantity, `line_items[${i}][quantity]`);
      let components = rates[key] ?? [];
      if (code === 'txcd_10302000' && EBOOK_RATES[country])
        components = [
          { type: 'vat', percent: EBOOK_RATES[country], state: null },
        ];
      const reason = reverseCharge
        ? 'reverse_charge'
        : !registered
          ? 'not_collecting'
          : components.length === 0
            ? 'not_subject_to_tax'
            : 'standard_rated';
      const taxed = reason === 'standard_rated' ? components : [];
      const percent = taxed.reduce((sum, c) => sum + Number(c.percent), 0);
      const isInclusive = behavior === 'inclusive';
      const lineTax = isInclusive
        ? amount - Math.round(amount / (1 + percent / 100))
        : Math.round((amount * percent) / 100);
      const base = isInclusive ? amount - lineTax : amount;
      // Each component's share; the last takes the rounding remainder.
      let left = lineTax;
      const shown =
        taxed.length > 0
          ? taxed
          : [{ type: components[0]?.type ?? 'vat', percent: '0.0', state }];
      shown.forEach((c, index) => {
        const share =
          index === shown.length - 1
            ? left
            : Math.round((lineTax * Number(c.percent)) / (percent || 1));
        left -= share;
        breakdown.push({
          amount: share,
          inclusive: isInclusive,
          tax_rate_details: {
            country,
            percentage_decimal: c.percent,
            state: c.state,
            tax_type: c.type,
            flat_amount: null,
            rate_type: 'percentage',
          },
          taxability_reason: reason,
          taxable_amount: reason === 'standard_rated' ? base : 0,
        });
      });
      if (isInclusive) inclusive += lineTax;
      else exclusive += lineTax;
      total += isInclusive ? amount : amount + lineTax;
      lineItems.push({
        id: newId('tax_li'),
        object: 'tax.calculation_line_item',
        amount,
        amount_tax: lineTax,
        livemode: account.livemode,
        product: null,
        quantity,
        reference: item.reference,
        tax_behavior: behavior,
        tax_code: code,
        metadata: null,
      });
    }
    const id = newId('taxcalc');
    const calculation: StripeObject = {
      ...structuredClone(FIXTURES['tax.calculation']),
      id,
      object: 'tax.calculation',
      amount_total: total,
      currency: currency.toLowerCase(),
      customer: (params.customer as string | undefined) ?? null,
      customer_details: {
        address: {
          city: address.city ?? null,
          country,
          line1: address.line1 ?? null,
          line2: address.line2 ?? null,
          postal_code: address.postal_code ?? null,
          state,
        },
        address_source: source ?? 'shipping',
        ip_address: null,
        tax_ids: taxIds.map((t) => ({ type: t.type, value: t.value })),
        taxability_override: 'none',
      },
      expires_at: now() + 90 * 24 * 3600,
      livemode: account.livemode,
      ship_from_details: null,
      shipping_cost: null,
      tax_amount_exclusive: exclusive,
      tax_amount_inclusive: inclusive,
      tax_breakdown: breakdown,
      tax_date: now(),
      line_items: {
        object: 'list',
        data: lineItems,
        has_more: false,
        url: `/v1/tax/calculations/${id}/line_items`,
      },
    };
    account.objects.set(id, calculation);
    return calculation;
  }

  private referenceTaken(account: TaxAccount, reference: unknown) {
    if (typeof reference !== 'string' || !reference) throw missing('reference');
    for (const object of account.objects.values())
      if (object.object === 'tax.transaction' && object.reference === reference)
        throw invalid(
          `A transaction with reference '${reference}' already exists.`,
          {
            code: 'tax_transaction_reference_already_exists',
            param: 'reference',
          },
        );
  }

  private fromCalculation(account: TaxAccount, params: Params): StripeObject {
    const id = params.calculation;
    if (typeof id !== 'string' || !id) throw missing('calculation');
    const calculation = account.objects.get(id);
    if (!calculation || calculation.object !== 'tax.calculation')
      throw noSuch('tax calculation', id, 'calculation');
    if ((calculation.expires_at as number) < now())
      throw invalid('The calculation has expired.', { param: 'calculation' });
    this.referenceTaken(account, params.reference);
    const lines = (calculation.line_items as { data: StripeObject[] }).data;
    const transaction: StripeObject = {
      ...structuredClone(FIXTURES['tax.transaction']),
      id: newId('tax'),
      object: 'tax.transaction',
      created: now(),
      currency: calculation.currency,
      customer: calculation.customer,
      customer_details: structuredClone(calculation.customer_details),
      livemode: account.livemode,
      metadata: (params.metadata as Params | undefined) ?? {},
      posted_at: now(),
      reference: params.reference,
      reversal: null,
      ship_from_details: null,
      shipping_cost: null,
      tax_date: calculation.tax_date,
      type: 'transaction',
    };
    transaction.line_items = {
      object: 'list',
      data: lines.map((line) => ({
        ...line,
        id: newId('tax_li'),
        object: 'tax.transaction_line_item',
        reversal: null,
        type: 'transaction',
      })),
      has_more: false,
      url: `/v1/tax/transactions/${transaction.id}/line_items`,
    };
    account.objects.set(transaction.id, transaction);
    return transaction;
  }

  private reverse(account: TaxAccount, params: Params): StripeObject {
    const mode = params.mode;
    if (mode !== 'full' && mode !== 'partial')
      throw mode === undefined
        ? missing('mode')
        : invalid(`Invalid mode: ${JSON.stringify(mode)}`, { param: 'mode' });
    const id = params.original_transaction;
    if (typeof id !== 'string' || !id) throw missing('original_transaction');
    const original = account.objects.get(id);
    if (
      !original ||
      original.object !== 'tax.transaction' ||
      original.type !== 'transaction'
    )
      throw noSuch('tax transaction', id, 'original_transaction');
    this.referenceTaken(account, params.reference);
    const lines = (original.line_items as { data: Params[] }).data;
    const gross = lines.reduce(
      (sum, l) =>
        sum +
        (l.tax_behavior === 'inclusive'
          ? (l.amount as number)
          : (l.amount as number) + (l.amount_tax as number)),
      0,
    );
    const reversed = this.reversedGross.get(id) ?? 0;
    let share: number;
    if (mode === 'full') {
      if (reversed !== 0)
        throw invalid('The transaction has already been partially reversed.', {
          param: 'mode',
        });
      share = gross;
    } else {
      if (params.flat_amount === undefined) throw missing('flat_amount');
      const flat = integerOf(params.flat_amount, 'flat_amount');
      if (flat >= 0 || -flat > gross - reversed)
        throw invalid(
          'flat_amount must be negative and at most what is left to reverse.',
          { param: 'flat_amount' },
        );
      share = -flat;
    }
    const ratio = gross > 0 ? share / gross : 0;
    const reversal: StripeObject = {
      ...structuredClone(original),
      id: newId('tax'),
      created: now(),
      posted_at: now(),
      metadata: (params.metadata as Params | undefined) ?? {},
      reference: params.reference,
      reversal: { original_transaction: id },
      type: 'reversal',
    };
    this.reversedGross.set(id, reversed + share);
    reversal.line_items = {
      object: 'list',
      data: lines.map((line) => ({
        ...line,
        id: newId('tax_li'),
        amount: -Math.round((line.amount as number) * ratio),
        amount_tax: -Math.round((line.amount_tax as number) * ratio),
        reversal: { original_line_item: line.id },
        type: 'reversal',
      })),
      has_more: false,
      url: `/v1/tax/transactions/${String(reversal.id)}/line_items`,
    };
    account.objects.set(reversal.id, reversal);
    return reversal;
  }
}
