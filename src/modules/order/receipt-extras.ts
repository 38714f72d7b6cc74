import { Injectable } from '@nestjs/common';
import { Order } from './order.entity';

/** A license key as the buyer sees it on the receipt: in full. */
export interface ReceiptLicenseKey {
  product: string;
  key: string;
  /** null when unlimited. */
  activationLimit: number | null;
  expiresAt: Date | null;
}

/**
 * What other modules add to an order's receipt page and portal row: its
 * license keys (licensing) and its invoice PDF link (invoices). They depend
 * on orders, so they register here in their `onModuleInit`.
 */
export interface ReceiptExtraSource {
  licenseKeys?(order: Order): Promise<ReceiptLicenseKey[]>;
  /** A signed invoice PDF link; null when the order has none (failed). */
  invoiceUrl?(order: Order): Promise<string | null>;
  /** Auto-renewal terms of the subscriptions the order started. */
  terms?(order: Order): Promise<string[]>;
}

@Injectable()
export class ReceiptExtras {
  private readonly sources: ReceiptExtraSource[] = [];

  register(source: ReceiptExtraSource) {
    if (!this.sources.includes(source)) this.sources.push(source);
  }

  async licenseKeys(order: Order): Promise<ReceiptLicenseKey[]> {
    const parts = await Promise.all(
      this.sources.map((s) =>
        s.licenseKeys ? s.licenseKeys(order) : Promise.resolve([]),
      ),
    );
    return parts.flat();
  }

  async terms(order: Order): Promise<string[]> {
    const parts = await Promise.all(
      this.sources.map((s) => (s.terms ? s.terms(order) : Promise.resolve([]))),
    );
    return parts.flat();
  }

  async invoiceUrl(order: Order): Promise<string | null> {
    for (const source of this.sources) {
      const url = source.invoiceUrl ? await source.invoiceUrl(order) : null;
      if (url) return url;
    }
    return null;
  }
}
