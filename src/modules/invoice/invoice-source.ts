import { Injectable } from '@nestjs/common';
import { Principal } from '../../common/principal';
import { InvoiceData } from './invoice-view';

/**
 * A kind of record that can be invoiced (orders, subscription invoices).
 * One small class per kind, registered with `InvoiceSources` in its
 * module's `onModuleInit`; routes, links, jobs and storage are shared.
 */
export interface InvoiceSource {
  /** The JSON:API type in the route: `/v1/<type>/:id/generate-invoice`. */
  readonly type: string;
  /**
   * The invoice of record `id` as `principal` sees it: null when it does not
   * exist or lies outside the principal's stores or mode (the caller answers
   * 404). May throw an AppError when the record cannot be invoiced yet.
   */
  load(principal: Principal, id: number): Promise<InvoiceData | null>;
  /**
   * Optional: the invoice behind a link issued without an owner scope
   * (`InvoiceService.link(type, id, null)`, e.g. for `urls.invoice_url`,
   * rendered where no principal is at hand). The signature is then the only
   * credential. A source without it serves only scoped links.
   */
  loadLinked?(id: number): Promise<InvoiceData | null>;
}

/** Every registered invoice source, by type. */
@Injectable()
export class InvoiceSources {
  private readonly sources = new Map<string, InvoiceSource>();

  register(source: InvoiceSource) {
    if (this.sources.has(source.type)) {
      throw new Error(`Invoice source "${source.type}" registered twice`);
    }
    this.sources.set(source.type, source);
  }

  get(type: string): InvoiceSource | null {
    return this.sources.get(type) ?? null;
  }
}
