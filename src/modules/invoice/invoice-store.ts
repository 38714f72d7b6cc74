import { InvoiceData } from './invoice-view';

const COUNTRY_NAMES = new Intl.DisplayNames(['en'], {
  type: 'region',
  fallback: 'none',
});

/** The seller block every invoice source shows: the store's name, domain and country. */
export function invoiceStore(store: {
  name: string;
  domain: string | null;
  country: string;
}): InvoiceData['store'] {
  return {
    name: store.name,
    lines: [
      store.domain ?? '',
      COUNTRY_NAMES.of(store.country) ?? store.country,
    ].filter((line) => line !== ''),
  };
}
