import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Customer } from './customer.entity';

/** A customer's money figures, in USD cents (spec 2.5). */
export interface CustomerFigures {
  /** Every paid charge (orders; subscription invoices but the initial one) less refunds. */
  totalRevenueCurrency: number;
  /** What running subscriptions charge per month. */
  mrr: number;
  /** Whether the customer ever bought a subscription in the store (the portal link depends on it). */
  hasSubscription: boolean;
}

export const NO_FIGURES: CustomerFigures = {
  totalRevenueCurrency: 0,
  mrr: 0,
  hasSubscription: false,
};

/** Whose activity a source is asked about. */
export interface CustomerRef {
  id: number;
  storeId: number;
  testMode: boolean;
}

export interface PortalOrder {
  orderNumber: number;
  createdAt: Date;
  productName: string;
  status: string;
  /** Formatted in the order's currency, e.g. "$9.99". */
  totalFormatted: string;
  receiptUrl: string | null;
  /** The order's signed invoice PDF link. */
  invoiceUrl: string | null;
}

export interface PortalSubscription {
  productName: string;
  variantName: string;
  status: string;
  /** Next renewal; null when not renewing. */
  renewsAt: Date | null;
  endsAt: Date | null;
  /** Formatted amount per period, e.g. "$9.99 / month". */
  priceFormatted: string | null;
  /** Auto-renewal terms while it renews ("…; cancel any time"). */
  terms: string | null;
  /** The subscription's own signed page: plan, quantity, cancel, invoices. */
  manageUrl: string;
}

export interface PortalLicenseKey {
  /** The full key: the portal is the customer's own signed page. */
  key: string;
  productName: string;
  status: string;
  activationUsage: number;
  /** null when unlimited. */
  activationLimit: number | null;
  expiresAt: Date | null;
  /** The key's activations, each with its signed deactivate form target. */
  instances: { name: string; activatedAt: Date; deactivateUrl: string }[];
}

/** A file the customer bought, with a freshly signed download link. */
export interface PortalDownload {
  orderNumber: number;
  name: string;
  /** e.g. "5 MB". */
  size: string;
  url: string;
  /** Downloads left for the order item; null when unlimited. */
  remaining: number | null;
}

export interface PortalLists {
  orders: PortalOrder[];
  subscriptions: PortalSubscription[];
  licenseKeys: PortalLicenseKey[];
  downloads: PortalDownload[];
}

/**
 * What the order, billing and licensing modules know about customers. Each
 * implements the parts it owns and registers with `CustomerActivity` in its
 * `onModuleInit` (customers cannot depend on those modules: they depend on
 * customers). Without a source a customer has no revenue, no MRR, no
 * subscription and therefore no portal link.
 */
export interface CustomerActivitySource {
  /** Figures for these customers; missing entries and fields count as zero/false. */
  figures?(
    customers: CustomerRef[],
    now: Date,
  ): Promise<Map<number, Partial<CustomerFigures>>>;
  /** This source's lists on the customer's portal page. */
  portal?(customer: CustomerRef, now: Date): Promise<Partial<PortalLists>>;
  /**
   * The customer's billing address or tax number changed (API or portal),
   * inside the change's transaction: billing re-decides the tax of the
   * customer's renewing subscriptions. No network calls here.
   */
  billingChanged?(
    manager: EntityManager,
    customer: Customer,
    now: Date,
  ): Promise<void>;
}

/** The registered sources, combined: figures add up, lists concatenate. */
@Injectable()
export class CustomerActivity {
  private readonly sources: CustomerActivitySource[] = [];

  register(source: CustomerActivitySource) {
    if (this.sources.includes(source)) return;
    this.sources.push(source);
  }

  async figures(
    customers: CustomerRef[],
    now: Date,
  ): Promise<Map<number, CustomerFigures>> {
    const combined = new Map<number, CustomerFigures>();
    if (customers.length === 0) return combined;
    const results = await Promise.all(
      this.sources.map((source) =>
        source.figures
          ? source.figures(customers, now)
          : Promise.resolve(new Map<number, Partial<CustomerFigures>>()),
      ),
    );
    for (const customer of customers) {
      const total = { ...NO_FIGURES };
      for (const result of results) {
        const part = result.get(customer.id);
        if (!part) continue;
        total.totalRevenueCurrency += part.totalRevenueCurrency ?? 0;
        total.mrr += part.mrr ?? 0;
        total.hasSubscription ||= part.hasSubscription ?? false;
      }
      combined.set(customer.id, total);
    }
    return combined;
  }

  async portal(customer: CustomerRef, now: Date): Promise<PortalLists> {
    const parts: Partial<PortalLists>[] = await Promise.all(
      this.sources.map((source) =>
        source.portal ? source.portal(customer, now) : Promise.resolve({}),
      ),
    );
    return {
      orders: parts.flatMap((part) => part.orders ?? []),
      subscriptions: parts.flatMap((part) => part.subscriptions ?? []),
      licenseKeys: parts.flatMap((part) => part.licenseKeys ?? []),
      downloads: parts.flatMap((part) => part.downloads ?? []),
    };
  }

  /** Every source's reaction to a billing change, one after another. */
  async billingChanged(
    manager: EntityManager,
    customer: Customer,
    now: Date,
  ): Promise<void> {
    for (const source of this.sources)
      if (source.billingChanged)
        await source.billingChanged(manager, customer, now);
  }
}
