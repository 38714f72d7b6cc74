/** The bill-to fields a caller may pass to generate-invoice, all optional. */
export interface InvoiceFields {
  name?: string;
  address?: string;
  city?: string;
  state?: string;
  zip_code?: string;
  country?: string;
  notes?: string;
  /** BCP 47 locale for amounts and dates (the reference's optional `locale`). */
  locale?: string;
}

export interface InvoiceLine {
  description: string;
  quantity: number;
  /**
   * Minor units of the invoice currency; null when the line has no single
   * unit price (package or tiered pricing, fractions of a cent).
   */
  unitPrice: number | null;
  total: number;
}

/**
 * What an invoice source knows about one billable record: everything on the
 * PDF except the fields the caller typed. Amounts are integer minor units
 * of `currency`. It must be a function of the record alone (no "now"), since
 * its hash names the stored PDF.
 */
export interface InvoiceData {
  /**
   * The record's store (with `testMode`, whose stored bill-to details a
   * link may name). Not printed, and not part of the PDF's content hash.
   */
  storeId: number;
  /** The record's own number, e.g. the order number: "Invoice #…" when there is no invoice number. */
  number: string;
  /**
   * The store's gap-free invoice number (`2026-000042`), once the sale is
   * paid; the record's number is then printed as its reference.
   */
  invoiceNumber?: string | null;
  /** What the record's number is, printed before it as the reference ("Order"). */
  reference?: string;
  issuedAt: Date;
  /** The service period billed, when the record has one (subscriptions). */
  period?: { start: Date; end: Date };
  currency: string;
  /** Machine status (`paid`, `refunded`, `pending`, `void`, …) and its label. */
  status: string;
  statusLabel: string;
  testMode: boolean;
  /** The seller: legal name, then address, registration number and domain lines. */
  store: { name: string; lines: string[] };
  /** Bill-to defaults when the caller's fields leave them out. */
  customer: {
    name: string;
    email: string;
    country: string | null;
    /** The billing postcode and region the sale was taxed by, when known. */
    postcode?: string | null;
    state?: string | null;
    /** The buyer's VAT/tax number (a B2B sale), printed under the address. */
    taxNumber?: string | null;
  };
  lines: InvoiceLine[];
  subtotal: number;
  discountTotal: number;
  tax: number;
  total: number;
  taxName: string | null;
  /** Decimal percentage as on the wire, e.g. "20.00"; null without tax. */
  taxRate: string | null;
  taxInclusive: boolean;
  /** The reverse-charge wording of a B2B sale without tax; absent or null otherwise. */
  taxNote?: string | null;
  refundedAmount: number;
  refundedAt: Date | null;
}

/** Everything the PDF shows. */
export interface InvoiceView extends InvoiceData {
  fields: InvoiceFields;
}
