import { join, resolve } from 'node:path';
import { DataSource, EntityMetadata } from 'typeorm';
import {
  analyseRepository,
  filesUnder,
  MethodReport,
  storeOwnedTablesFromMigrations,
} from '../../test/support/repository-tenancy';

/**
 * Every repository method that reads or writes a store-owned table goes
 * through `tenancy.ts` (see `test/support/repository-tenancy.ts` for what
 * counts), or is one of the reviewed exceptions below, each with why the
 * caller's tenancy is already settled. A new query that forgets the tenancy
 * fails here until it uses it or is added with a reason.
 */

/** Workers and sweeps acting for every store (renewals and dunning, the webhook relay, sender and retention, the mail sender). */
const SYSTEM = 'system';
/** Public lookups whose unguessable identifier or server-signed link is the permission (receipt, invoice and portal links, buy_now_url, license keys, file downloads, hosted checkouts, bill-to tokens). */
const LINK = 'link';
/**
 * A record the caller has already found in its tenancy in this request
 * (or is creating in a store and mode it checked, or a purchase's own store),
 * read again, locked or written by id; or that record's children (items,
 * instances, attempts, usage totals, first items).
 */
const HELD = 'held';
/** Builds an entity in memory or hands out the connection; no query of its own. */
const NO_QUERY = 'no-query';
/** Figures over store or customer ids the caller resolved in its tenancy. */
const FIGURES = 'figures';

const EXCEPTIONS: Record<string, string> = {
  // Payment attempts: stored for a record the use case found in its tenancy,
  // settled by id (in the request or by the sweeper acting for every store).
  'PaymentAttemptRepository.insertOrFind': HELD,
  'PaymentAttemptRepository.settlePending': HELD,
  'PaymentAttemptRepository.settle': HELD,
  'PaymentAttemptRepository.pendingRefunds': HELD,
  'PaymentAttemptRepository.findStale': SYSTEM,
  // Stripe's events: stored for the store whose signing secret verified
  // them, processed and swept by the worker for every store.
  'StripeEventRepository.insertIfAbsent': HELD,
  'StripeEventRepository.startAttempt': SYSTEM,
  'StripeEventRepository.markProcessed': SYSTEM,
  'StripeEventRepository.recordFailure': SYSTEM,
  'StripeEventRepository.findUnprocessed': SYSTEM,
  'StripeEventRepository.deleteProcessedBefore': SYSTEM,
  'PaymentAttemptRepository.findPending': HELD,
  // Intent attempts: found by the intent a store's own Stripe account named
  // (scoped by store and mode), by the order the buyer's signed link names,
  // or by the key of the order being paid; written by id.
  'PaymentAttemptRepository.findIntent': HELD,
  'PaymentAttemptRepository.findIntentOf': LINK,
  'PaymentAttemptRepository.findByKey': HELD,
  'PaymentAttemptRepository.recordIntent': HELD,
  'PaymentAttemptRepository.touch': SYSTEM,
  // A purchase's customer in its own store's Stripe account.
  'StripeCustomerRepository.find': HELD,
  'StripeCustomerRepository.insertOrFind': HELD,
  // A store's links forgotten as its owner changes its Stripe account.
  'StripeCustomerRepository.forget': HELD,
  'OrderRepository.findById': HELD,
  'OrderRepository.lock': HELD,
  'SubscriptionInvoiceRepository.lock': HELD,
  'SubscriptionInvoiceRepository.subscriptionIdOf': HELD,
  'DiscountRepository.redeemedBy': HELD,
  'DiscountRepository.deleteRedemptions': HELD,
  // A store's Stripe account: written for a store the caller owns, read for
  // a store whose record is being paid, counted for stores already listed.
  'StripeCredentialsRepository.upsert': HELD,
  'StripeCredentialsRepository.delete': HELD,
  'StripeCredentialsRepository.find': HELD,
  'StripeCredentialsRepository.configuredStores': FIGURES,
  'SubscriptionInvoiceRepository.findById': LINK,
  'SubscriptionInvoiceRepository.openRenewal': HELD,
  'SubscriptionInvoiceRepository.renewalFor': HELD,
  'SubscriptionInvoiceRepository.insert': HELD,
  'SubscriptionInvoiceRepository.save': HELD,
  'SubscriptionInvoiceRepository.revenueByStore': FIGURES,
  'SubscriptionInvoiceRepository.revenueByCustomer': FIGURES,
  'SubscriptionRepository.lock': HELD,
  'SubscriptionRepository.quantityLimits': HELD,
  'SubscriptionRepository.findById': LINK,
  'LicenseKeyRepository.findKeyById': LINK,
  'SubscriptionRepository.storeName': LINK,
  'SubscriptionRepository.lockNextDue': SYSTEM,
  'SubscriptionRepository.save': HELD,
  'SubscriptionRepository.insert': HELD,
  'SubscriptionRepository.firstItems': HELD,
  'SubscriptionRepository.withFirstItemsOf': HELD,
  'SubscriptionRepository.itemsOf': HELD,
  'SubscriptionRepository.findItem': HELD,
  'SubscriptionRepository.saveItem': HELD,
  'SubscriptionRepository.insertItem': HELD,
  'SubscriptionRepository.prices': HELD,
  'UsageRecordRepository.periodUsage': HELD,
  'UsageRecordRepository.previousTotal': HELD,
  // The totals of items the batch found (and share-locked) in its tenancy.
  'UsageBatchRepository.fold': HELD,
  'FileRepository.findContent': LINK,
  'FileRepository.nextSort': HELD,
  'FileRepository.insert': HELD,
  'FileRepository.update': HELD,
  'FileRepository.markDeleted': HELD,
  'FileRepository.isSoldBefore': HELD,
  'FileRepository.detachBytes': HELD,
  'FileRepository.findByIdentifier': LINK,
  'FileRepository.findDeliverable': LINK,
  'FileRepository.findUnmoved': SYSTEM,
  'FileRepository.markMoved': SYSTEM,
  'DeliveryRepository.findItem': LINK,
  'DeliveryRepository.paidItemsOfCustomer': LINK,
  'DeliveryRepository.itemsOfOrder': LINK,
  'DeliveryRepository.count': LINK,
  'PriceRepository.findCurrentOfProduct': HELD,
  'PriceRepository.insert': HELD,
  'ProductRepository.save': HELD,
  'ProductRepository.create': NO_QUERY,
  'ProductRepository.variantSummaries': HELD,
  'VariantRepository.findByUuid': LINK,
  'VariantRepository.ofProduct': HELD,
  'VariantRepository.save': HELD,
  'VariantRepository.create': NO_QUERY,
  'VariantRepository.prices': HELD,
  'CheckoutRepository.save': HELD,
  'CheckoutRepository.create': NO_QUERY,
  'CheckoutRepository.findById': LINK,
  'CustomerRepository.storeName': LINK,
  'CustomerRepository.findById': LINK,
  'CustomerRepository.insert': HELD,
  'CustomerRepository.lock': HELD,
  'CustomerRepository.update': HELD,
  'CustomerRepository.insertOrFind': HELD,
  'DiscountRepository.manager': NO_QUERY,
  'DiscountRepository.insert': HELD,
  'DiscountRepository.softDelete': HELD,
  'DiscountRepository.recordRedemption': HELD,
  'InvoiceBillToRepository.findByToken': LINK,
  'LicenseKeyRepository.findByKey': LINK,
  'LicenseKeyRepository.lockByKey': LINK,
  'LicenseKeyRepository.lockByOrderItem': HELD,
  'LicenseKeyRepository.insertKeys': HELD,
  'LicenseKeyRepository.saveKey': HELD,
  'LicenseKeyRepository.addInstance': HELD,
  'LicenseKeyRepository.removeInstance': HELD,
  'LicenseKeyRepository.changeInstanceCount': HELD,
  'LicenseKeyRepository.findInstanceOfKey': LINK,
  'OrderRepository.numbering': HELD,
  'OrderRepository.insertOrder': HELD,
  'OrderRepository.insertItems': HELD,
  'OrderRepository.saveOrder': HELD,
  'OrderRepository.settlePending': HELD,
  'OrderRepository.findByIdentifier': LINK,
  'OrderRepository.withFirstItems': HELD,
  'OrderRepository.itemsOf': HELD,
  'OrderRevenueRepository.sales': FIGURES,
  'OrderRevenueRepository.revenueByCustomer': FIGURES,
  'OrderRepository.ofCustomer': LINK,
  'WebhookAttemptRepository.claimMany': SYSTEM,
  'WebhookAttemptRepository.finishMany': SYSTEM,
  'WebhookDeliveryRepository.relayBatch': SYSTEM,
  'WebhookDeliveryRepository.deleteOlderThan': SYSTEM,
  'WebhookDeliveryRepository.due': SYSTEM,
  'WebhookDeliveryRepository.withAttempts': HELD,
  'WebhookRepository.insert': HELD,
  'WebhookRepository.update': HELD,
  'WebhookRepository.delete': HELD,
  'MailMessageRepository.findById': SYSTEM,
  'MailMessageRepository.takeDue': SYSTEM,
  'MailMessageRepository.requeueExpiredClaims': SYSTEM,
  'MailMessageRepository.claim': SYSTEM,
  'MailMessageRepository.failUnsendable': SYSTEM,
  'MailMessageRepository.markRetry': SYSTEM,
  'MailMessageRepository.settle': SYSTEM,
  // The mail worker's renderers and trial-ending sweep act for every store;
  // the portal's sign-in mails each customer record of the address typed,
  // only to that address (the inbox is the credential), answering the same.
  'MailRecordsRepository.subscription': SYSTEM,
  'MailRecordsRepository.recordTrialEndings': SYSTEM,
  'MailRecordsRepository.customersByEmail': LINK,
};

const SRC = resolve(process.cwd(), 'src');
const MIGRATIONS = join(SRC, 'database/migrations');

async function entityMetadata(): Promise<EntityMetadata[]> {
  const entities: Function[] = [];
  for (const file of filesUnder(join(SRC, 'modules'), '.entity.ts')) {
    const module = (await import(file)) as Record<string, unknown>;
    for (const value of Object.values(module))
      if (typeof value === 'function') entities.push(value);
  }
  // Builds the mapping only: the data source is never connected.
  const dataSource = new DataSource({ type: 'postgres', entities });
  await (
    dataSource as unknown as { buildMetadatas(): Promise<void> }
  ).buildMetadatas();
  return dataSource.entityMetadatas;
}

describe('repository tenancy', () => {
  let entityTables: Map<string, string>;
  let owned: Set<string>;
  let reports: MethodReport[];

  beforeAll(async () => {
    const metadata = await entityMetadata();
    entityTables = new Map(metadata.map((m) => [m.targetName, m.tableName]));
    owned = storeOwnedTablesFromMigrations(MIGRATIONS);
    reports = filesUnder(SRC, '.repository.ts').flatMap((file) =>
      analyseRepository(file, entityTables, owned),
    );
  });

  it('knows every store-owned entity, from the mapping and the schema alike', async () => {
    const withStore = (await entityMetadata())
      .filter((m) => m.columns.some((c) => c.databaseName === 'store_id'))
      .map((m) => m.tableName)
      .sort();
    expect(withStore.length).toBeGreaterThanOrEqual(18);
    for (const table of withStore) expect(owned).toContain(table);
    // Reachable from a store-owned row without a store_id of their own.
    for (const table of [
      'webhook_deliveries',
      'webhook_delivery_attempts',
      'subscription_usage_totals',
      'discount_variants',
      'file_contents',
    ])
      expect(owned).toContain(table);
    for (const table of ['stores', 'users', 'api_keys', 'exchange_rates'])
      expect(owned).not.toContain(table);
  });

  it('finds the queries of every repository', () => {
    const touching = new Set(reports.map((r) => r.name.split('.')[0]));
    for (const repository of [
      'OrderRepository',
      'CustomerRepository',
      'ProductRepository',
      'SubscriptionRepository',
      'LicenseKeyRepository',
      'WebhookDeliveryRepository',
      'DiscountRepository',
      'CheckoutRepository',
    ])
      expect(touching).toContain(repository);
  });

  it('sends every store-owned query through the tenancy, or names why not', () => {
    const unscoped = reports
      .filter((r) => !r.scoped && EXCEPTIONS[r.name] === undefined)
      .map((r) => `${r.name} (${r.tables.join(', ')})`);
    expect(unscoped).toEqual([]);
  });

  it('keeps no stale exception', () => {
    const unscoped = new Set(
      reports.filter((r) => !r.scoped).map((r) => r.name),
    );
    expect(
      Object.keys(EXCEPTIONS).filter((name) => !unscoped.has(name)),
    ).toEqual([]);
  });

  it('catches a query that forgets the tenancy, in any of the three forms', () => {
    const source = `
      import { Injectable } from '@nestjs/common';
      import { InjectRepository } from '@nestjs/typeorm';
      import { scoped } from '../../database/tenancy';
      import { Order } from './order.entity';
      const BY_ID = 'SELECT * FROM orders o WHERE o.id = $1';
      @Injectable()
      export class ProbeRepository {
        constructor(@InjectRepository(Order) private readonly orders: Repository<Order>) {}
        builder(principal: Principal, id: number): Promise<Order | null> {
          return this.orders.createQueryBuilder('o').where('o.id = :id', { id }).getOne();
        }
        raw(id: number): Promise<unknown> {
          return pool.query(BY_ID, [id]);
        }
        manager(manager: EntityManager, id: number): Promise<Order | null> {
          return manager.findOneBy(Order, { id });
        }
        private visible(principal: Principal) {
          return scoped(this.orders.createQueryBuilder('o'), 'o', principal);
        }
        good(principal: Principal, id: number): Promise<Order | null> {
          return this.visible(principal).andWhere('o.id = :id', { id }).getOne();
        }
        notAQuery(order: Order): number {
          return order.id;
        }
      }`;
    const found = analyseRepository(
      join(SRC, 'modules/order/probe.repository.ts'),
      entityTables,
      owned,
      source,
    );
    expect(Object.fromEntries(found.map((r) => [r.name, r.scoped]))).toEqual({
      'ProbeRepository.builder': false,
      'ProbeRepository.raw': false,
      'ProbeRepository.manager': false,
      'ProbeRepository.visible': true,
      // good (through visible) and notAQuery touch no table themselves.
    });
  });
});
