import { createHash, randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { INVOICE_FIELD_NAMES } from './invoice-fields';
import { InvoiceBillTo } from './invoice-bill-to.entity';
import {
  BillToOwner,
  InvoiceBillToRepository,
} from './invoice-bill-to.repository';
import { InvoiceFields } from './invoice-view';

/** The shape of a token: 128 random bits in base64url. */
export const BILL_TO_TOKEN = /^[A-Za-z0-9_-]{22}$/;

/** Names one set of details whatever the order its keys were given in. */
export function billToDigest(fields: InvoiceFields): string {
  const values = INVOICE_FIELD_NAMES.map((name) => fields[name] ?? null);
  return createHash('sha256').update(JSON.stringify(values)).digest('hex');
}

function fieldsOf(row: InvoiceBillTo): InvoiceFields {
  const columns: Record<keyof InvoiceFields, string | null> = {
    name: row.name,
    address: row.address,
    city: row.city,
    state: row.state,
    zip_code: row.zipCode,
    country: row.country,
    notes: row.notes,
    locale: row.locale,
  };
  const fields: InvoiceFields = {};
  for (const name of INVOICE_FIELD_NAMES) {
    const value = columns[name];
    if (value !== null) fields[name] = value;
  }
  return fields;
}

/**
 * Bill-to details kept server-side, so that an invoice link names them by
 * an opaque token instead of repeating a buyer's name and address in its
 * query string. A set of details belongs to the invoiced record's store and
 * mode, and is stored once per store and mode however often it is sent.
 */
@Injectable()
export class InvoiceBillToService {
  constructor(private readonly rows: InvoiceBillToRepository) {}

  /** The token naming `fields` for `owner`; null when there are none to keep. */
  async save(
    owner: BillToOwner,
    fields: InvoiceFields,
  ): Promise<string | null> {
    if (Object.keys(fields).length === 0) return null;
    return this.rows.findOrCreate(
      owner,
      billToDigest(fields),
      fields,
      randomBytes(16).toString('base64url'),
    );
  }

  /** The details behind `token`; null when unknown or when they belong to another store or mode. */
  async find(owner: BillToOwner, token: string): Promise<InvoiceFields | null> {
    if (!BILL_TO_TOKEN.test(token)) return null;
    const row = await this.rows.findByToken(token);
    if (
      !row ||
      row.storeId !== owner.storeId ||
      row.testMode !== owner.testMode
    ) {
      return null;
    }
    return fieldsOf(row);
  }
}
