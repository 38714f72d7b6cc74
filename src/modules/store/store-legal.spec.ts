import { AppError } from '../../common/app-error';
import { formatInvoiceNumber } from './invoice-numbers';
import {
  buyerTaxNumberLine,
  checkLegalAddress,
  checkTaxNumbers,
  sellerLines,
} from './store-legal';

const codeOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return (error as AppError).errors[0].code;
  }
  return null;
};

describe('invoice numbers', () => {
  it.each([
    [false, 2026, 1, '2026-000001'],
    [false, 2026, 42, '2026-000042'],
    [true, 2027, 7, 'TEST-2027-000007'],
    // Past a million a year the number grows instead of wrapping.
    [false, 2026, 1234567, '2026-1234567'],
  ])('test mode %p, %p, #%p is %p', (testMode, year, n, expected) => {
    expect(formatInvoiceNumber(testMode, year, n)).toBe(expected);
  });
});

describe('the store’s legal identity', () => {
  it('normalises and checks tax numbers: jsvat for EU and UK, a plain format elsewhere', () => {
    expect(
      checkTaxNumbers({
        fr: 'FR 403 032 650 45',
        GB: 'gb980780684',
        AU: '53 004 085 616',
      }),
    ).toEqual({
      FR: 'FR40303265045',
      GB: 'GB980780684',
      AU: '53004085616',
    });
    expect(codeOf(() => checkTaxNumbers({ FR: 'FR12345678901' }))).toBe(
      'invalid_tax_number',
    );
    // A valid German number filed under France is refused.
    expect(codeOf(() => checkTaxNumbers({ FR: 'DE136695976' }))).toBe(
      'invalid_tax_number',
    );
    expect(codeOf(() => checkTaxNumbers({ ZZ: '123456' }))).toBe(
      'invalid_tax_numbers',
    );
    expect(codeOf(() => checkTaxNumbers({ US: 42 }))).toBe(
      'invalid_tax_numbers',
    );
    expect(codeOf(() => checkTaxNumbers('FR40303265045'))).toBe(
      'invalid_tax_numbers',
    );
  });

  it('checks the address’s shape and country', () => {
    expect(
      checkLegalAddress({
        lines: [' 5 rue  de Rivoli ', ''],
        city: 'Paris',
        postcode: '75001',
        country: 'fr',
      }),
    ).toEqual({
      lines: ['5 rue de Rivoli'],
      city: 'Paris',
      state: null,
      postcode: '75001',
      country: 'FR',
    });
    for (const bad of [
      null,
      [],
      { city: 'Paris' },
      { country: 'XX' },
      { country: 'FR', lines: ['a', 'b', 'c', 'd'] },
      { country: 'FR', lines: 'rue' },
      { country: 'FR', city: 7 },
      { country: 'FR', postcode: '1'.repeat(21) },
      { country: 'FR', street: 'rue' },
    ])
      expect(codeOf(() => checkLegalAddress(bad))).toBe(
        'invalid_legal_address',
      );
  });

  const store = {
    name: 'Boutique',
    domain: 'boutique.example',
    country: 'FR',
    legalName: 'Boutique Numérique SAS',
    legalAddress: {
      lines: ['5 rue de Rivoli'],
      city: 'Paris',
      state: null,
      postcode: '75001',
      country: 'FR',
    },
    taxNumbers: { FR: 'FR40303265045', GB: 'GB980780684' },
  };

  it('prints the number of the buyer’s country where the store has one, else its own', () => {
    expect(sellerLines(store, 'GB')).toEqual({
      name: 'Boutique Numérique SAS',
      lines: [
        '5 rue de Rivoli',
        '75001 Paris',
        'France',
        'VAT number: GB980780684',
        'boutique.example',
      ],
    });
    expect(sellerLines(store, 'DE').lines).toContain(
      'VAT number: FR40303265045',
    );
    expect(sellerLines(store, null).lines).toContain(
      'VAT number: FR40303265045',
    );
  });

  it('falls back to the store name and country without legal data', () => {
    expect(
      sellerLines(
        {
          ...store,
          legalName: null,
          legalAddress: null,
          taxNumbers: null,
          domain: null,
        },
        'DE',
      ),
    ).toEqual({ name: 'Boutique', lines: ['France'] });
  });

  it('labels the buyer’s number by their country', () => {
    expect(buyerTaxNumberLine('DE', 'DE136695976')).toBe(
      'VAT number: DE136695976',
    );
    expect(buyerTaxNumberLine('AU', '53004085616')).toBe(
      'GST number: 53004085616',
    );
    expect(buyerTaxNumberLine('US', '12-3456789')).toBe(
      'Tax number: 12-3456789',
    );
    expect(buyerTaxNumberLine('DE', null)).toBeNull();
  });
});
