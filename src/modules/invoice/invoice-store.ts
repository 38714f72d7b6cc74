import { sellerLines } from '../store/store-legal';
import type { Store } from '../store/store.entity';
import { InvoiceData } from './invoice-view';

/** The seller block every invoice source shows (see `sellerLines`), for a sale to `saleCountry`. */
export function invoiceStore(
  store: Pick<
    Store,
    'name' | 'domain' | 'country' | 'legalName' | 'legalAddress' | 'taxNumbers'
  >,
  saleCountry: string | null,
): InvoiceData['store'] {
  return sellerLines(store, saleCountry);
}
