import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { FilterValue, ListQuery, Page } from '../../common/list-query';
import { Principal } from '../../common/principal';
import { SignedUrls } from '../../common/signed-urls.service';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { Transactions } from '../../database/transactions';
import {
  CustomerActivity,
  CustomerFigures,
  NO_FIGURES,
  PortalLists,
} from './customer-activity';
import { Customer } from './customer.entity';
import { CustomerRepository, isDuplicateEmail } from './customer.repository';
import { CustomerErrors } from './customer.errors';
import {
  BILLING_FIELDS,
  changesOf,
  CustomerUpdate,
  newCustomerFields,
} from './customer-changes';

export type { CustomerUpdate } from './customer-changes';

/** Spec 8: the portal link is valid 24 hours from the request. */
export const PORTAL_LINK_LIFETIME_MS = 24 * 60 * 60 * 1000;

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
  /** The billing form's signed target. */
  billingAction: string;
}

@Injectable()
export class CustomerService {
  constructor(
    private readonly customers: CustomerRepository,
    private readonly activity: CustomerActivity,
    private readonly signedUrls: SignedUrls,
    private readonly clock: Clock,
    private readonly transactions: Transactions,
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
      ...newCustomerFields(input),
      status: 'subscribed' as const,
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
    return this.change(customer.id, input);
  }

  /**
   * The portal's billing form (the signed link is the credential): saved
   * exactly as PATCH saves it, with the same checks and effects.
   */
  async updateBilling(
    id: number,
    input: Pick<CustomerUpdate, (typeof BILLING_FIELDS)[number]>,
  ): Promise<CustomerView> {
    const customer = await this.customers.findById(id);
    if (!customer) throw CustomerErrors.portalNotFound();
    return this.change(customer.id, input);
  }

  /**
   * One customer's changes under its row lock. A new billing address or tax
   * number (an EU or UK VAT number format-checked for the billing country by
   * the tax module's check) is handed to the registered sources in the same
   * transaction: billing re-decides the tax of the renewing subscriptions
   * and sends `subscription_updated` for each one that changed.
   */
  private async change(
    id: number,
    input: CustomerUpdate,
  ): Promise<CustomerView> {
    const customer = await this.transactions.run(async (manager) => {
      const customer = await this.customers.lock(manager, id);
      if (!customer) throw AppError.notFound();
      const changes = changesOf(customer, input);
      if (Object.keys(changes).length === 0) return customer;
      const billing = BILLING_FIELDS.some(
        (field) =>
          changes[field] !== undefined && changes[field] !== customer[field],
      );
      const now = this.clock.now();
      changes.updatedAt = now;
      try {
        await this.customers.update(customer.id, changes, manager);
      } catch (error) {
        if (isDuplicateEmail(error)) throw CustomerErrors.duplicateEmail();
        throw error;
      }
      Object.assign(customer, changes);
      if (billing) await this.activity.billingChanged(manager, customer, now);
      return customer;
    });
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
      ...newCustomerFields(input),
      status: 'subscribed',
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
    return {
      customer,
      storeName: storeName ?? '',
      lists,
      billingAction: this.signedUrls.sign(
        this.config.http.publicBaseUrl,
        `/portal/customers/${customer.id}/billing`,
        {
          expiresAt: new Date(
            this.clock.now().getTime() + PORTAL_LINK_LIFETIME_MS,
          ),
        },
      ),
    };
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
