import { thrownAppError } from '../../../test/support/app-error';
import { plainToInstance } from 'class-transformer';
import {
  InvoiceFieldsAttributes,
  invoiceFieldsFromQuery,
  invoiceFieldsFromRequest,
  invoiceFieldsQuery,
} from './invoice-fields';

describe('invoice fields', () => {
  it('trims, collapses single-line whitespace, drops blanks and canonicalizes the locale', () => {
    expect(
      invoiceFieldsFromQuery({
        name: '  Grace   Hopper ',
        address: ' 1 Navy Way \r\n Building 7 ',
        city: '',
        locale: 'de-de',
      }),
    ).toEqual({
      name: 'Grace Hopper',
      address: '1 Navy Way\nBuilding 7',
      locale: 'de-DE',
    });
  });

  it('refuses unknown and repeated parameters with 400', () => {
    const unknown = thrownAppError(() =>
      invoiceFieldsFromQuery({ colour: 'red' }),
    );
    expect(unknown.status).toBe(400);
    expect(unknown.errors[0]).toMatchObject({
      parameter: 'colour',
      code: 'unknown_parameter',
    });
    const repeated = thrownAppError(() =>
      invoiceFieldsFromQuery({ name: ['a', 'b'] }),
    );
    expect(repeated.status).toBe(400);
  });

  it('refuses values over their limits, control characters and bad locales with 422', () => {
    for (const [query, parameter] of [
      [{ zip_code: '1'.repeat(33) }, 'zip_code'],
      [{ notes: 'x'.repeat(1001) }, 'notes'],
      [{ name: 'bell\u0007' }, 'name'],
      [{ locale: 'not a locale' }, 'locale'],
    ] as const) {
      const error = thrownAppError(() => invoiceFieldsFromQuery(query));
      expect(error.status).toBe(422);
      expect(error.errors[0]).toMatchObject({
        parameter,
        code: 'invalid_parameter',
      });
    }
  });

  it("merges the body's attributes, accepting a numeric zip code, and requires query and body to agree", () => {
    const attributes = plainToInstance(InvoiceFieldsAttributes, {
      zip_code: 10115,
      city: 'Berlin',
    });
    expect(invoiceFieldsFromRequest({ name: 'A' }, attributes)).toEqual({
      name: 'A',
      city: 'Berlin',
      zip_code: '10115',
    });
    expect(invoiceFieldsFromRequest({}, undefined)).toEqual({});
    expect(
      thrownAppError(() =>
        invoiceFieldsFromRequest({ city: 'Paris' }, attributes),
      ).status,
    ).toBe(400);
    expect(
      invoiceFieldsFromRequest(
        { city: 'Berlin' },
        plainToInstance(InvoiceFieldsAttributes, { city: 'Berlin' }),
      ),
    ).toEqual({ city: 'Berlin' });
  });

  it('writes link parameters in a fixed order', () => {
    expect(
      invoiceFieldsQuery({ notes: 'n', name: 'a b', country: 'US' }).toString(),
    ).toBe('name=a+b&country=US&notes=n');
  });
});
