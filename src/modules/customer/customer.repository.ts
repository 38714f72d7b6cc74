import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository, SelectQueryBuilder } from 'typeorm';
import { FilterValue, ListQuery, Page } from '../../common/list-query';
import { Principal } from '../../common/principal';
import { EntityRows } from '../../database/entity-rows';
import { ownsStore, scoped, scopedListPage } from '../../database/tenancy';
import { Customer, CustomerStatus } from './customer.entity';

const SORT_COLUMNS: Record<string, string> = {
  created_at: 'customer.created_at',
  updated_at: 'customer.updated_at',
};

/** The unique index behind "one customer per store, email and mode". */
export const CUSTOMER_EMAIL_INDEX = 'customers_store_mode_email_key';

export interface CustomerRow {
  storeId: number;
  testMode: boolean;
  name: string;
  email: string;
  status: CustomerStatus;
  city: string | null;
  region: string | null;
  country: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export type CustomerChanges = Partial<
  Pick<
    Customer,
    | 'name'
    | 'email'
    | 'status'
    | 'city'
    | 'region'
    | 'country'
    | 'address'
    | 'zip'
    | 'taxNumber'
    | 'updatedAt'
  >
>;

/** The customer of store $1, mode $2 and the address in `email` (any case), as the unique index matches it. */
const byEmail = (email: string) => `customer.store_id = $1
  AND customer.test_mode = $2 AND lower(customer.email) = lower(${email})`;

/** True when `error` is the unique violation of the customer email index. */
export function isDuplicateEmail(error: unknown): boolean {
  const e = error as {
    code?: unknown;
    constraint?: unknown;
    driverError?: { code?: unknown; constraint?: unknown };
  } | null;
  const code = e?.code ?? e?.driverError?.code;
  const constraint = e?.constraint ?? e?.driverError?.constraint;
  return code === '23505' && constraint === CUSTOMER_EMAIL_INDEX;
}

/**
 * Every query for customers. A customer is visible to a key when its store
 * belongs to the key's user and its mode is the key's mode.
 */
@Injectable()
export class CustomerRepository {
  private readonly customerRows: EntityRows<Customer>;

  constructor(
    @InjectRepository(Customer)
    private readonly customers: Repository<Customer>,
  ) {
    this.customerRows = new EntityRows(customers, 'customer');
  }

  private visible(principal: Principal): SelectQueryBuilder<Customer> {
    return scoped(
      this.customers.createQueryBuilder('customer'),
      'customer',
      principal,
    );
  }

  findVisible(principal: Principal, ids: number[]): Promise<Customer[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.visible(principal)
      .andWhere('customer.id IN (:...ids)', { ids })
      .getMany();
  }

  findByFilter(
    principal: Principal,
    filter: 'store_id' | 'email',
    values: FilterValue[],
  ): Promise<Customer[]> {
    if (values.length === 0) return Promise.resolve([]);
    const builder = this.visible(principal);
    if (filter === 'store_id') {
      builder.andWhere('customer.store_id IN (:...values)', { values });
    } else {
      builder.andWhere('lower(customer.email) IN (:...values)', {
        values: values.map((v) => String(v).toLowerCase()),
      });
    }
    return builder
      .orderBy('customer.created_at', 'DESC')
      .addOrderBy('customer.id', 'DESC')
      .getMany();
  }

  findPage(principal: Principal, query: ListQuery): Promise<Page<Customer>> {
    const builder = this.customers.createQueryBuilder('customer');
    const { store_id: storeId, email } = query.filters;
    if (storeId !== undefined) {
      builder.andWhere('customer.store_id = :storeId', { storeId });
    }
    if (email !== undefined) {
      // Addresses are unique regardless of case, so the exact match is too (and uses the index).
      builder.andWhere('lower(customer.email) = lower(:email)', { email });
    }
    return scopedListPage(builder, 'customer', SORT_COLUMNS, query, principal);
  }

  /** A store the principal's user owns (stores are visible in both modes). */
  storeOwned(principal: Principal, storeId: number): Promise<boolean> {
    return ownsStore(this.customers.manager, principal, storeId);
  }

  /** Name of a customer's store, for the portal page. */
  async storeName(storeId: number): Promise<string | null> {
    const rows: { name: string }[] = await this.customers.manager.query(
      'SELECT name FROM stores WHERE id = $1',
      [storeId],
    );
    return rows[0]?.name ?? null;
  }

  findById(id: number): Promise<Customer | null> {
    return this.customers.findOneBy({ id });
  }

  /** Inserts; a duplicate address throws the unique violation (see isDuplicateEmail). */
  insert(row: CustomerRow): Promise<Customer> {
    return this.customers.save(this.customers.create(row));
  }

  async update(
    id: number,
    changes: CustomerChanges,
    manager?: EntityManager,
  ): Promise<void> {
    await (manager ?? this.customers.manager).update(Customer, { id }, changes);
  }

  /** The customer's row, locked until the transaction ends. */
  lock(manager: EntityManager, id: number): Promise<Customer | null> {
    return manager.findOne(Customer, {
      where: { id },
      lock: { mode: 'pessimistic_write' },
    });
  }

  /**
   * Race-safe find-or-create inside the caller's transaction, in one
   * statement when nothing races: the insert, or else the existing row. A
   * purchase by the same address committing meanwhile makes the insert wait
   * and skip, while the statement's snapshot still misses that row; the
   * second read then finds it (READ COMMITTED: a fresh snapshot).
   */
  async insertOrFind(
    manager: EntityManager,
    row: CustomerRow,
  ): Promise<Customer> {
    const [customer] = await this.customerRows.query(
      `WITH inserted AS (
         INSERT INTO customers AS customer
           (store_id, test_mode, name, email, status, city, region, country, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
         ON CONFLICT (store_id, test_mode, lower(email)) DO NOTHING
         RETURNING ${this.customerRows.select})
       SELECT * FROM inserted
       UNION ALL
       SELECT ${this.customerRows.select} FROM customers customer
        WHERE ${byEmail('$4')} AND NOT EXISTS (SELECT 1 FROM inserted)`,
      [
        row.storeId,
        row.testMode,
        row.name,
        row.email,
        row.status,
        row.city,
        row.region,
        row.country,
        row.createdAt,
        row.updatedAt,
      ],
      'customers.insert-or-find',
      manager,
    );
    if (customer) return customer;
    const [existing] = await this.customerRows.query(
      `SELECT ${this.customerRows.select} FROM customers customer WHERE ${byEmail('$3')}`,
      [row.storeId, row.testMode, row.email],
      'customers.by-email',
      manager,
    );
    // Only missing if the conflicting row was deleted in between; retrying is the caller's choice.
    if (!existing)
      throw new Error('Customer vanished between insert and select');
    return existing;
  }
}
