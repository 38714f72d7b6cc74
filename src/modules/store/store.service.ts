import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppError } from '../../common/app-error';
import { isCountryCode } from '../../common/country-codes';
import { Clock } from '../../common/clock';
import { ListQuery, Page } from '../../common/list-query';
import { Principal } from '../../common/principal';
import { parseMailbox } from '../../common/mail-address';
import { Transactions } from '../../database/transactions';
import { ExchangeRates } from '../currency/exchange-rates.service';
import { MAIL_KINDS } from '../mail/mail-kinds';
import { MailErrors } from '../mail/mail.errors';
import {
  StripeCredentialsService,
  StripeKeysInput,
} from '../payment/stripe-credentials.service';
import { Store } from './store.entity';
import { StoreRepository } from './store.repository';
import { NO_SALES, StoreSalesSources, StoreView } from './store-sales';
import { StoreErrors } from './store.errors';
import { checkRegistrations } from '../tax/registrations';
import { TAX_PROVIDER_NAMES, type TaxProviderName } from '../tax/tax-provider';
import { TaxErrors } from '../tax/tax.errors';
import {
  checkLegalAddress,
  checkTaxNumbers,
  LegalAddress,
  TaxNumbers,
} from './store-legal';

const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

export interface NewStore {
  userId: number;
  name: string;
  slug?: string;
  domain?: string | null;
  currency?: string;
  country?: string;
  /** Extension: the From of the store's e-mail; null for MAIL_FROM. */
  mailFrom?: string | null;
  /** Extension: the Reply-To of the store's e-mail; null for none. */
  mailReplyTo?: string | null;
  /** Extension: the kinds of e-mail (MAIL_KINDS) the store does not send. */
  mailDisabledKinds?: string[];
  /** Extension: whether prices include tax; null for TAX_INCLUSIVE. */
  taxInclusive?: boolean | null;
  /** Extension: countries the store charges tax in (EU: all 27); null for everywhere. */
  taxRegistrations?: string[] | null;
  /** Extension: `builtin` (default) or `stripe` (Stripe Tax; needs the store's Stripe account of the mode). */
  taxProvider?: TaxProviderName;
  /** Extension: the seller's legal name; null for the store name. */
  legalName?: string | null;
  /** Extension: the seller's postal address, checked by `checkLegalAddress`. */
  legalAddress?: unknown;
  /** Extension: tax registration numbers by country, checked by `checkTaxNumbers`. */
  taxNumbers?: unknown;
}

export function isCurrencyCode(code: string): boolean {
  return /^[A-Z]{3}$/.test(code) && CURRENCIES.has(code);
}

export type StoreChanges = Partial<Omit<NewStore, 'userId'>>;

const HOST_NAME =
  /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;

/** Checks the writable store attributes that were given; trims the name. */
function validateStoreFields(input: StoreChanges): StoreChanges {
  const fields: StoreChanges = { ...input };
  for (const name of ['name', 'slug', 'currency', 'country'] as const) {
    if (input[name] === null) throw StoreErrors.attributeNotNullable(name);
  }
  if (input.name !== undefined) {
    fields.name = input.name.trim();
    if (!fields.name) throw StoreErrors.attributeRequired('name');
  }
  if (input.currency !== undefined && !isCurrencyCode(input.currency)) {
    throw StoreErrors.invalidCurrency();
  }
  if (input.country !== undefined && !isCountryCode(input.country)) {
    throw StoreErrors.invalidCountry();
  }
  if (
    input.slug !== undefined &&
    (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(input.slug) || input.slug.length > 60)
  ) {
    throw StoreErrors.invalidSlug();
  }
  if (
    input.domain !== undefined &&
    input.domain !== null &&
    !HOST_NAME.test(input.domain)
  ) {
    throw StoreErrors.invalidDomain();
  }
  if (input.domain) fields.domain = input.domain.toLowerCase();
  for (const [key, attribute] of [
    ['mailFrom', 'mail_from'],
    ['mailReplyTo', 'mail_reply_to'],
  ] as const) {
    const value = input[key];
    if (value === undefined || value === null) continue;
    if (!parseMailbox(value)) throw MailErrors.invalidMailbox(attribute);
    fields[key] = value.trim();
  }
  if (input.mailDisabledKinds !== undefined) {
    if (
      input.mailDisabledKinds === null ||
      !input.mailDisabledKinds.every((kind) =>
        (MAIL_KINDS as readonly string[]).includes(kind),
      )
    )
      throw MailErrors.unknownKind('mail_disabled_kinds');
    fields.mailDisabledKinds = [...new Set(input.mailDisabledKinds)];
  }
  if (input.taxRegistrations)
    fields.taxRegistrations = checkRegistrations(input.taxRegistrations);
  if (
    input.taxProvider !== undefined &&
    !(TAX_PROVIDER_NAMES as readonly unknown[]).includes(input.taxProvider)
  )
    throw TaxErrors.invalidTaxProvider();
  if (typeof input.legalName === 'string')
    fields.legalName = input.legalName.trim() || null;
  if (input.legalAddress !== undefined && input.legalAddress !== null)
    fields.legalAddress = checkLegalAddress(input.legalAddress);
  if (input.taxNumbers !== undefined && input.taxNumbers !== null) {
    const numbers = checkTaxNumbers(input.taxNumbers);
    fields.taxNumbers = Object.keys(numbers).length > 0 ? numbers : null;
  }
  return fields;
}

function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return slug || 'store';
}

@Injectable()
export class StoreService {
  constructor(
    private readonly stores: StoreRepository,
    private readonly clock: Clock,
    private readonly rates: ExchangeRates,
    private readonly sales: StoreSalesSources,
    private readonly stripe: StripeCredentialsService,
    private readonly transactions: Transactions,
  ) {}

  async create(input: NewStore): Promise<Store> {
    const fields = this.validate(input);
    const name = fields.name ?? '';
    if (!name) throw StoreErrors.attributeRequired('name');
    const slug =
      fields.slug !== undefined
        ? await this.takenCheck(fields.slug)
        : await this.freeSlug(slugify(name));
    return this.saveUnique(
      this.stores.create({
        userId: input.userId,
        name,
        slug,
        domain: fields.domain ?? null,
        avatarUrl: null,
        plan: 'fresh',
        country: fields.country ?? 'US',
        currency: fields.currency ?? 'USD',
        mailFrom: fields.mailFrom ?? null,
        mailReplyTo: fields.mailReplyTo ?? null,
        mailDisabledKinds: fields.mailDisabledKinds ?? [],
        taxInclusive: fields.taxInclusive ?? null,
        taxRegistrations: fields.taxRegistrations ?? null,
        taxProvider: this.newStoreProvider(fields.taxProvider),
        legalName: fields.legalName ?? null,
        legalAddress: (fields.legalAddress as LegalAddress | undefined) ?? null,
        taxNumbers: (fields.taxNumbers as TaxNumbers | undefined) ?? null,
      }),
    );
  }

  /**
   * PATCH /v1/stores/:id: only the attributes given change. `stripe`
   * connects (an object of keys) or disconnects (null) the store's Stripe
   * account of the API key's mode, in the same transaction.
   */
  async update(
    principal: Principal,
    id: number,
    changes: StoreChanges,
    stripe?: StripeKeysInput | null,
  ): Promise<StoreView> {
    const store = await this.findOwned(principal.userId, id);
    if (!store) throw AppError.notFound();
    const fields = this.validate(changes);
    const keys = stripe
      ? this.stripe.check(principal.testMode, stripe)
      : stripe;
    if (fields.slug !== undefined && fields.slug !== store.slug)
      store.slug = await this.takenCheck(fields.slug);
    if (fields.name !== undefined) store.name = fields.name;
    if (fields.domain !== undefined) store.domain = fields.domain;
    if (fields.country !== undefined) store.country = fields.country;
    if (fields.currency !== undefined) store.currency = fields.currency;
    if (fields.mailFrom !== undefined) store.mailFrom = fields.mailFrom;
    if (fields.mailReplyTo !== undefined)
      store.mailReplyTo = fields.mailReplyTo;
    if (fields.mailDisabledKinds !== undefined)
      store.mailDisabledKinds = fields.mailDisabledKinds;
    if (fields.taxInclusive !== undefined)
      store.taxInclusive = fields.taxInclusive;
    if (fields.taxRegistrations !== undefined)
      store.taxRegistrations = fields.taxRegistrations;
    if (fields.taxProvider !== undefined) {
      // Stripe Tax calls the store's Stripe account of the mode: connected
      // already, or in this same request.
      if (
        fields.taxProvider === 'stripe' &&
        !keys &&
        (keys === null ||
          !(await this.stripe.configured([id], principal.testMode)).has(id))
      )
        throw TaxErrors.stripeTaxNeedsStripe(principal.testMode);
      store.taxProvider = fields.taxProvider;
    }
    if (fields.legalName !== undefined) store.legalName = fields.legalName;
    if (fields.legalAddress !== undefined)
      store.legalAddress = fields.legalAddress as LegalAddress | null;
    if (fields.taxNumbers !== undefined)
      store.taxNumbers = fields.taxNumbers as TaxNumbers | null;
    const saved = await this.transactions.run(async (manager) => {
      const written = await this.saveUnique(store, manager);
      if (keys) await this.stripe.set(manager, id, principal.testMode, keys);
      if (keys === null)
        await this.stripe.clear(manager, id, principal.testMode);
      return written;
    });
    const [view] = await this.withSales(principal, [saved]);
    return view;
  }

  /** A new store has no Stripe account yet, so no Stripe Tax. */
  private newStoreProvider(provider: TaxProviderName | undefined) {
    if (provider === 'stripe') throw TaxErrors.stripeTaxNeedsStripe(false);
    return provider ?? 'builtin';
  }

  /** The CLI's `stores:payments`: connects or disconnects a store's Stripe account of a mode. */
  async setStripe(
    id: number,
    testMode: boolean,
    stripe: StripeKeysInput | null,
  ): Promise<void> {
    if (!(await this.findById(id))) throw AppError.notFound();
    const keys = stripe ? this.stripe.check(testMode, stripe) : null;
    await this.transactions.run((manager) =>
      keys
        ? this.stripe.set(manager, id, testMode, keys)
        : this.stripe.clear(manager, id, testMode),
    );
  }

  /** One of the user's stores, without sales figures (relationship checks). */
  async findOwned(userId: number, id: number): Promise<Store | null> {
    const [store] = await this.stores.findOwned(userId, [id]);
    return store ?? null;
  }

  /**
   * A store by id alone, for a record the caller has already scoped (or a
   * signed link stands in for): no ownership check, no sales figures.
   */
  async findById(id: number): Promise<Store | null> {
    const [store] = await this.stores.findByIds([id]);
    return store ?? null;
  }

  /** The currency of each store, for formatting amounts of its records. */
  async currencies(ids: number[]): Promise<Map<number, string>> {
    const stores = await this.stores.findByIds([...new Set(ids)]);
    return new Map(stores.map((store) => [store.id, store.currency]));
  }

  async findOne(principal: Principal, id: number): Promise<StoreView | null> {
    const [store] = await this.findMany(principal, [id]);
    return store ?? null;
  }

  async findMany(principal: Principal, ids: number[]): Promise<StoreView[]> {
    return this.withSales(
      principal,
      await this.stores.findOwned(principal.userId, ids),
    );
  }

  async findPage(
    principal: Principal,
    query: ListQuery,
  ): Promise<Page<StoreView>> {
    const page = await this.stores.findPage(principal.userId, query);
    return {
      records: await this.withSales(principal, page.records),
      total: page.total,
    };
  }

  /** Stores of the user, for CLI and seeding. */
  findAllOwned(userId: number): Promise<Store[]> {
    return this.stores.findAllOwned(userId);
  }

  private async withSales(
    principal: Principal,
    stores: Store[],
  ): Promise<StoreView[]> {
    const ids = stores.map((s) => s.id);
    const [figures, connected] = await Promise.all([
      this.sales.salesByStore(ids, principal.testMode, this.clock.now()),
      this.stripe.configured(ids, principal.testMode),
    ]);
    const mode = principal.testMode ? 'test' : 'live';
    // A plain view object is what the serializer reads; no entity methods are needed.
    return stores.map((store) => ({
      // oxlint-disable-next-line typescript/no-misused-spread
      ...store,
      sales: figures.get(store.id) ?? NO_SALES,
      stripe: { mode, configured: connected.has(store.id) },
    }));
  }

  /** The field rules, plus: a store sells only in a currency it can price in USD. */
  private validate(input: StoreChanges): StoreChanges {
    const fields = validateStoreFields(input);
    if (fields.currency !== undefined && !this.rates.supports(fields.currency))
      throw StoreErrors.currencyWithoutRate(fields.currency);
    return fields;
  }

  private async takenCheck(slug: string): Promise<string> {
    if (await this.stores.slugExists(slug)) throw StoreErrors.slugTaken();
    return slug;
  }

  /** The unique index decides between two requests racing for one slug. */
  private async saveUnique(
    store: Store,
    manager?: EntityManager,
  ): Promise<Store> {
    try {
      return await this.stores.save(store, manager);
    } catch (error) {
      const e = error as { code?: unknown; constraint?: unknown };
      if (e.code === '23505' && e.constraint === 'stores_slug_key')
        throw StoreErrors.slugTaken();
      throw error;
    }
  }

  private async freeSlug(base: string): Promise<string> {
    for (let n = 1; ; n++) {
      const candidate = n === 1 ? base : `${base}-${n}`;
      if (!(await this.stores.slugExists(candidate))) return candidate;
    }
  }
}
