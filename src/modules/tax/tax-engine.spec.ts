import fc from 'fast-check';
import { saleTotals, splitTax } from '../../common/money';
import type { AppConfig } from '../../config/app-config';
import { AppError } from '../../common/app-error';
import { BuiltinTaxProvider } from './builtin-tax.provider';
import { StoreTaxSettings, TaxEngine, TaxRequest } from './tax-engine';

function engine(
  taxRates: Record<string, { name: string; rate: number }> = {},
  taxInclusive = false,
) {
  return new TaxEngine(
    new BuiltinTaxProvider(),
    { money: { taxRates, taxInclusive } } as unknown as AppConfig,
    null,
  );
}

const FRENCH_STORE: StoreTaxSettings = {
  country: 'FR',
  taxInclusive: null,
  taxRegistrations: null,
};

function request(fields: Partial<TaxRequest>): TaxRequest {
  return {
    store: FRENCH_STORE,
    country: 'DE',
    zip: null,
    state: null,
    taxNumber: null,
    taxCode: 'eservice',
    refuseInvalidNumber: true,
    ...fields,
  };
}

describe('TaxEngine', () => {
  it('charges a consumer the rate of their country and keeps the evidence', async () => {
    const decision = await engine().decide(
      request({ country: 'DE', zip: '10115' }),
    );
    expect(decision.tax).toEqual({ name: 'VAT', rate: 19 });
    expect(decision.note).toBeNull();
    expect(decision.inclusive).toBe(false);
    expect(decision.evidence).toEqual({
      billingCountry: 'DE',
      billingZip: '10115',
      billingRegion: null,
      taxNumber: null,
      taxNumberCheck: null,
      rateSource: expect.stringMatching(/^sales-tax@2\.23\.0\+zest-digital-/),
    });
  });

  describe('reverse charge', () => {
    it.each([
      // A German business buying from a French store: the buyer accounts for the VAT.
      ['DE', 'DE136695976', 'Article 196'],
      ['DE', 'de 136 695 976', 'Article 196'],
      ['AT', 'ATU13585627', 'Article 196'],
      ['NL', 'NL004495445B01', 'Article 196'],
      ['GR', 'EL094259216', 'Article 196'],
      ['GB', 'GB980780684', 'HMRC'],
    ])('%s business with %s pays no tax', async (country, number, wording) => {
      const decision = await engine().decide(
        request({ country, taxNumber: number }),
      );
      expect(decision.tax).toBeNull();
      expect(decision.note).toContain('Reverse charge');
      expect(decision.note).toContain(wording);
      expect(decision.evidence.taxNumberCheck).toBe('valid');
      expect(decision.evidence.rateSource).toBe('reverse_charge');
    });

    it('charges a business in the store’s own country its VAT', async () => {
      const decision = await engine().decide(
        request({ country: 'FR', taxNumber: 'FR40303265045' }),
      );
      expect(decision.tax).toEqual({ name: 'VAT', rate: 20 });
      expect(decision.note).toBeNull();
      expect(decision.evidence.taxNumberCheck).toBe('valid');
    });

    it('refuses an invalid VAT number on a purchase and taxes it on a preview', async () => {
      const refused = engine().decide(
        request({ country: 'DE', taxNumber: 'DE123456789' }),
      );
      await expect(refused).rejects.toBeInstanceOf(AppError);
      await expect(refused).rejects.toMatchObject({
        status: 422,
        errors: [{ code: 'invalid_vat_number' }],
      });
      const preview = await engine().decide(
        request({
          country: 'DE',
          taxNumber: 'DE123456789',
          refuseInvalidNumber: false,
        }),
      );
      expect(preview.tax).toEqual({ name: 'VAT', rate: 19 });
      expect(preview.evidence.taxNumberCheck).toBe('invalid');
    });

    it('refuses a valid number of another country than the billing one', async () => {
      await expect(
        engine().decide(request({ country: 'AT', taxNumber: 'DE136695976' })),
      ).rejects.toMatchObject({ errors: [{ code: 'invalid_vat_number' }] });
    });

    it('keeps a tax number from outside the EU and the UK unchecked and taxes the sale', async () => {
      const decision = await engine().decide(
        request({ country: 'AU', taxNumber: '51824753556' }),
      );
      expect(decision.tax).toEqual({ name: 'GST', rate: 10 });
      expect(decision.evidence.taxNumberCheck).toBe('not_checked');
    });
  });

  it('lets TAX_RATES override a country’s rate', async () => {
    const decision = await engine({ DE: { name: 'MwSt.', rate: 16 } }).decide(
      request({ country: 'DE' }),
    );
    expect(decision.tax).toEqual({ name: 'MwSt.', rate: 16 });
    expect(decision.evidence.rateSource).toBe('TAX_RATES');
    // Other countries still come from the table.
    expect(
      (
        await engine({ DE: { name: 'MwSt.', rate: 16 } }).decide(
          request({ country: 'AT' }),
        )
      ).tax,
    ).toEqual({ name: 'VAT', rate: 20 });
  });

  it('charges only where a store is registered, EU meaning the One-Stop Shop', async () => {
    const store = { ...FRENCH_STORE, taxRegistrations: ['EU', 'GB'] };
    expect(
      (await engine().decide(request({ store, country: 'IT' }))).tax,
    ).toEqual({ name: 'VAT', rate: 22 });
    expect(
      (await engine().decide(request({ store, country: 'GB' }))).tax,
    ).toEqual({ name: 'VAT', rate: 20 });
    const outside = await engine().decide(request({ store, country: 'AU' }));
    expect(outside.tax).toBeNull();
    expect(outside.evidence.rateSource).toBe('not_registered');
  });

  it('prices inclusive by the store’s setting, else the deployment’s', async () => {
    const inclusiveStore = { ...FRENCH_STORE, taxInclusive: true };
    expect(
      (await engine().decide(request({ store: inclusiveStore }))).inclusive,
    ).toBe(true);
    expect((await engine({}, true).decide(request({}))).inclusive).toBe(true);
    const exclusiveStore = { ...FRENCH_STORE, taxInclusive: false };
    expect(
      (await engine({}, true).decide(request({ store: exclusiveStore })))
        .inclusive,
    ).toBe(false);
  });

  it('reads the US state and Canadian province from the postcode', async () => {
    const texan = await engine().decide(
      request({ country: 'US', zip: '78701' }),
    );
    expect(texan.tax).toEqual({ name: 'Sales tax', rate: 6.25 });
    expect(texan.evidence.billingRegion).toBe('TX');
    const californian = await engine().decide(
      request({ country: 'US', zip: '94103' }),
    );
    expect(californian.tax).toBeNull();
    expect(californian.evidence.billingRegion).toBe('CA');
    const quebecer = await engine().decide(
      request({ country: 'CA', zip: 'H2X 1Y4' }),
    );
    expect(quebecer.tax).toEqual({ name: 'GST + QST', rate: 14.975 });
  });

  it('gives inclusive and exclusive prices the money module’s split, to the cent', async () => {
    const countries = ['DE', 'FR', 'HU', 'FI', 'GB', 'CH', 'AU', 'NZ', 'NO'];
    const rates = new Map<string, number>();
    for (const country of countries)
      rates.set(
        country,
        (await engine().decide(request({ country }))).tax!.rate,
      );
    rates.set('CA-QC', 14.975);
    fc.assert(
      fc.property(
        fc.constantFrom(...rates.values()),
        fc.integer({ min: 0, max: 10_000_000 }),
        (rate, net) => {
          const exclusive = saleTotals({
            subtotal: net,
            discount: 0,
            setupFee: 0,
            taxRate: rate,
            taxInclusive: false,
            currency: 'EUR',
            usdRate: 1,
          });
          const inclusive = saleTotals({
            subtotal: exclusive.total,
            discount: 0,
            setupFee: 0,
            taxRate: rate,
            taxInclusive: true,
            currency: 'EUR',
            usdRate: 1,
          });
          const split = splitTax(net, rate, false);
          return (
            exclusive.tax === split.tax &&
            inclusive.tax === exclusive.tax &&
            inclusive.total === exclusive.total &&
            inclusive.total - inclusive.tax === net
          );
        },
      ),
      { numRuns: 3000 },
    );
  });
});
