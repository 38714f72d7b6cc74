import { loadConfig } from '../../config/app-config';
import { ExchangeRateRepository, StoredRate } from './exchange-rate.repository';
import { ExchangeRates } from './exchange-rates.service';
import { SHIPPED_RATES } from './shipped-rates';
import { usdPerUnit } from './usd-rates';

function ratesWith(
  stored: Record<string, StoredRate>,
  env: Record<string, string> = {},
): ExchangeRates {
  const repository = {
    latest: (currency: string) => Promise.resolve(stored[currency] ?? null),
  } as unknown as ExchangeRateRepository;
  const config = loadConfig({
    APP_KEY: 'k'.repeat(32),
    DATA_DIR: '/tmp/zest-unit',
    ...env,
  });
  return new ExchangeRates(repository, config);
}

const fetchedEur: StoredRate = {
  rate: 1.25,
  date: '2026-11-20',
  source: 'European Central Bank euro reference rates',
};

describe('ExchangeRates', () => {
  it('falls back to the shipped table, with its date', async () => {
    await expect(ratesWith({}).usdRate('EUR')).resolves.toEqual({
      currency: 'EUR',
      rate: usdPerUnit(SHIPPED_RATES.unitsPerUsd.EUR),
      date: SHIPPED_RATES.date,
      origin: 'shipped',
    });
  });

  it('prefers the newest fetched day to the shipped table', async () => {
    await expect(
      ratesWith({ EUR: fetchedEur }).usdRate('EUR'),
    ).resolves.toEqual({
      currency: 'EUR',
      rate: 1.25,
      date: '2026-11-20',
      origin: 'fetched',
    });
  });

  it('prefers CURRENCY_RATES to everything, and knows no date for it', async () => {
    const rates = ratesWith(
      { EUR: fetchedEur },
      { CURRENCY_RATES: '{"EUR":1.1,"XSU":1.2}' },
    );
    await expect(rates.usdRate('EUR')).resolves.toEqual({
      currency: 'EUR',
      rate: 1.1,
      date: null,
      origin: 'override',
    });
    expect(rates.supports('XSU')).toBe(true);
  });

  it('prices USD at 1 and refuses a currency it has no rate for', async () => {
    const rates = ratesWith({});
    await expect(rates.usdRate('USD')).resolves.toMatchObject({ rate: 1 });
    expect(rates.supports('USD')).toBe(true);
    expect(rates.supports('XSU')).toBe(false);
    await expect(rates.usdRate('XSU')).rejects.toMatchObject({
      status: 422,
      message: 'No USD exchange rate is known for XSU; set CURRENCY_RATES.',
    });
  });

  it('ships a rate for every currency a store may use but those listed missing', () => {
    const rates = ratesWith({});
    const unsupported = Intl.supportedValuesOf('currency').filter(
      (code) => !rates.supports(code),
    );
    expect(unsupported).toEqual(SHIPPED_RATES.missing);
    expect(SHIPPED_RATES.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });
});
