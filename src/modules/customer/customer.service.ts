import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { FilterValue, ListQuery, Page } from '../../common/list-query';
import { Principal } from '../../common/principal';
import { SignedUrls } from '../../common/signed-urls.service';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { isCountryCode } from '../../common/country-codes';
import {
  CustomerActivity,
  CustomerFigures,
  NO_FIGURES,
  PortalLists,
} from './customer-activity';
import { Customer } from './customer.entity';
import {
  CustomerChanges,
  CustomerRepository,
  isDuplicateEmail,
} from './customer.repository';
import { CustomerErrors } from './customer.errors';

/** Spec 8: the portal link is valid 24 hours from the request. */
export const PORTAL_LINK_LIFETIME_MS = 24 * 60 * 60 * 1000;

const MAX_TEXT = 255;
// Deliberately loose (RFC 5322 allows far more); class-validator's IsEmail guards the API.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export type CustomerView = Customer & {
  figures: CustomerFigures;
  portalUrl: string | null;
};

export interface NewCustomer {
  /** The `store` relationship id as sent. */
  storeId: string;
  name: string;
  email: string;
  city?: string | null;
  region?: string | null;
  country?: string | null;
}

export interface CustomerUpdate {
  name?: string;
  email?: string;
  city?: string | null;
  region?: string | null;
  country?: string | null;
  status?: string;
}

export interface PurchaseCustomer {
  storeId: number;
  testMode: boolean;
  email: string;
  name: string;
  city?: string | null;
  region?: string | null;
  country?: string | null;
}

export interface CustomerPortal {
  customer: Customer;
  storeName: string;
  lists: PortalLists;
}

function requiredText(name: string, value: string): string {
  const trimmed = value.trim();
  if (!trimmed) throw CustomerErrors.attributeRequired(name);
  if (trimmed.length > MAX_TEXT)
    throw CustomerErrors.textTooLong(name, MAX_TEXT);
  return trimmed;
}

function optionalText(
  name: string,
  value: string | null | undefined,
): string | null {
  if (value === undefined || value === null) return null;
  const trimmed = value.trim();
  if (trimmed.length > MAX_TEXT)
    throw CustomerErrors.textTooLong(name, MAX_TEXT);
  return trimmed || null;
}

function email(value: string): string {
  const trimmed = value.trim();
  if (!EMAIL.test(trimmed) || trimmed.length > MAX_TEXT) {
    throw CustomerErrors.invalidEmail();
  }
  return trimmed;
}

function country(value: string | null | undefined): string | null {
  if (value === undefined || value === null) return null;
  if (!isCountryCode(value)) {
    throw CustomerErrors.invalidCountry();
  }
  return value;
}

@Injectable()
export class CustomerService {
  constructor(
    private readonly customers: CustomerRepository,
    private readonly activity: CustomerActivity,
    private readonly signedUrls: SignedUrls,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** POST /v1/customers: a new `subscribed` customer in the key's mode. */
  async create(
    principal: Principal,
    input: NewCustomer,
  ): Promise<CustomerView> {
    const storeId = /^[1-9]\d{0,9}$/.test(input.storeId)
      ? Number(input.storeId)
      : null;
    if (
      storeId === null ||
      storeId > 2147483647 ||
      !(await this.customers.storeOwned(principal, storeId))
    ) {
      throw CustomerErrors.storeNotFound();
    }
    const now = this.clock.now();
    const row = {
      storeId,
      testMode: principal.testMode,
      name: requiredText('name', input.name),
      email: email(input.email),
      status: 'subscribed' as const,
      city: optionalText('city', input.city),
      region: optionalText('region', input.region),
      country: country(input.country),
      createdAt: now,
      updatedAt: now,
    };
    let customer: Customer;
    try {
      customer = await this.customers.insert(row);
    } catch (error) {
      if (isDuplicateEmail(error)) throw CustomerErrors.duplicateEmail();
      throw error;
    }
    return (await this.views([customer]))[0];
  }

  /** PATCH /v1/customers/:id; `status` may only become `archived`. */
  async update(
    principal: Principal,
    id: number,
    input: CustomerUpdate,
  ): Promise<CustomerView> {
    const [customer] = await this.customers.findVisible(principal, [id]);
    if (!customer) throw AppError.notFound();
    const changes: CustomerChanges = {};
    if (input.status !== undefined) {
      if (input.status !== 'archived') {
        throw CustomerErrors.onlyArchive();
      }
      changes.status = 'archived';
    }
    if (input.name !== undefined)
      changes.name = requiredText('name', input.name);
    if (input.email !== undefined) changes.email = email(input.email);
    if (input.city !== undefined)
      changes.city = optionalText('city', input.city);
    if (input.region !== undefined)
      changes.region = optionalText('region', input.region);
    if (input.country !== undefined) changes.country = country(input.country);
    if (Object.keys(changes).length > 0) {
      changes.updatedAt = this.clock.now();
      try {
        await this.customers.update(customer.id, changes);
      } catch (error) {
        if (isDuplicateEmail(error)) throw CustomerErrors.duplicateEmail();
        throw error;
      }
      Object.assign(customer, changes);
    }
    return (await this.views([customer]))[0];
  }

  async findOne(
    principal: Principal,
    id: number,
  ): Promise<CustomerView | null> {
    const [customer] = await this.findMany(principal, [id]);
    return customer ?? null;
  }

  async findMany(principal: Principal, ids: number[]): Promise<CustomerView[]> {
    return this.views(await this.customers.findVisible(principal, ids));
  }

  async findPage(
    principal: Principal,
    query: ListQuery,
  ): Promise<Page<CustomerView>> {
    const page = await this.customers.findPage(principal, query);
    return { records: await this.views(page.records), total: page.total };
  }

  async findByFilter(
    principal: Principal,
    filter: string,
    values: FilterValue[],
  ): Promise<CustomerView[]> {
    if (filter !== 'store_id' && filter !== 'email')
      throw new Error(`customers cannot be listed by ${filter}`);
    return this.views(
      await this.customers.findByFilter(principal, filter, values),
    );
  }

  /**
   * The purchase flow's customer: the store's customer with this address in
   * this mode, created (as `subscribed`) when there is none. Runs in the
   * caller's transaction and is safe under concurrent purchases by one
   * address. An existing customer is returned unchanged.
   */
  async findOrCreateForPurchase(
    manager: EntityManager,
    input: PurchaseCustomer,
  ): Promise<Customer> {
    const now = this.clock.now();
    return this.customers.insertOrFind(manager, {
      storeId: input.storeId,
      testMode: input.testMode,
      name: requiredText('name', input.name),
      email: email(input.email),
      status: 'subscribed',
      city: optionalText('city', input.city),
      region: optionalText('region', input.region),
      country: country(input.country),
      createdAt: now,
      updatedAt: now,
    });
  }

  /**
   * A customer by id alone, for a record the caller has already scoped (or
   * a signed link stands in for): no figures, no portal link.
   */
  findById(id: number): Promise<Customer | null> {
    return this.customers.findById(id);
  }

  /**
   * The portal page's content. No principal: the caller has checked the
   * link's signature, which only this server can produce.
   */
  async portal(id: number): Promise<CustomerPortal | null> {
    const customer = await this.customers.findById(id);
    if (!customer) return null;
    const [storeName, lists] = await Promise.all([
      this.customers.storeName(customer.storeId),
      this.activity.portal(customer, this.clock.now()),
    ]);
    return { customer, storeName: storeName ?? '', lists };
  }

  /**
   * A fresh 24-hour portal link for any customer (the receipt page links it:
   * one-time buyers reach their orders, downloads and keys too). The API's
   * `urls.customer_portal` stays null for them, as the spec says.
   */
  portalLink(customerId: number): string {
    const expiresAt = new Date(
      this.clock.now().getTime() + PORTAL_LINK_LIFETIME_MS,
    );
    return this.signedUrls.sign(
      this.config.http.publicBaseUrl,
      `/portal/customers/${customerId}`,
      { expiresAt },
    );
  }

  /** Figures from the registered sources and a fresh portal link per read. */
  private async views(customers: Customer[]): Promise<CustomerView[]> {
    const now = this.clock.now();
    const figures = await this.activity.figures(customers, now);
    const expiresAt = new Date(now.getTime() + PORTAL_LINK_LIFETIME_MS);
    return customers.map((customer) => {
      const own = figures.get(customer.id) ?? NO_FIGURES;
      return {
        // oxlint-disable-next-line typescript/no-misused-spread
        ...customer,
        figures: own,
        portalUrl: own.hasSubscription
          ? this.signedUrls.sign(
              this.config.http.publicBaseUrl,
              `/portal/customers/${customer.id}`,
              { expiresAt },
            )
          : null,
      };
    });
  }
}
