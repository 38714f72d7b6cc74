import { ConfigError, loadConfig } from './app-config';

const base = { APP_KEY: 'k'.repeat(32) };

describe('loadConfig', () => {
  it('uses the embedded defaults when DATABASE_URL and REDIS_URL are unset', () => {
    const config = loadConfig(base);
    expect(config.database.url).toBeNull();
    expect(config.queue.redisUrl).toBeNull();
    expect(config.http.publicBaseUrl).toBe('http://localhost:3000');
    expect(config.http.requireHttps).toBe(false);
    expect(config.rateLimit.perMinute).toBe(300);
    expect(config.rateLimit.authFailuresPerMinute).toBe(60);
  });

  it('names the bad variable', () => {
    expect(() => loadConfig({ ...base, PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadConfig({ ...base, DATABASE_URL: 'mysql://x' })).toThrow(
      /DATABASE_URL/,
    );
    expect(() => loadConfig({ ...base, REQUIRE_HTTPS: 'maybe' })).toThrow(
      /REQUIRE_HTTPS/,
    );
  });

  it('requires APP_KEY in production and defaults REQUIRE_HTTPS on there', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(ConfigError);
    expect(
      loadConfig({ ...base, NODE_ENV: 'production', MAIL_DISABLED: 'true' })
        .http.requireHttps,
    ).toBe(true);
  });

  it('refuses production without MAIL_URL unless MAIL_DISABLED, and serves the mailbox outside production only', () => {
    const production = { ...base, NODE_ENV: 'production' };
    expect(() => loadConfig(production)).toThrow(/MAIL_URL: is required/);
    expect(
      loadConfig({ ...production, MAIL_DISABLED: 'true' }).mail,
    ).toMatchObject({ url: null, disabled: true, mailbox: false });
    expect(
      loadConfig({ ...production, MAIL_URL: 'smtps://u:p@mail.example.com' })
        .mail,
    ).toMatchObject({ url: 'smtps://u:p@mail.example.com', mailbox: false });
    expect(loadConfig(base).mail).toMatchObject({ url: null, mailbox: true });
    expect(() => loadConfig({ ...base, MAIL_URL: 'http://x' })).toThrow(
      /MAIL_URL: must be an smtp/,
    );
    expect(() =>
      loadConfig({ ...base, MAIL_DKIM_DOMAIN: 'example.com' }),
    ).toThrow(/MAIL_DKIM_SELECTOR: is required when MAIL_DKIM_DOMAIN is set/);
    expect(() =>
      loadConfig({ ...base, MAIL_FROM: 'two@a.com, b@c.com' }),
    ).toThrow(/MAIL_FROM/);
  });

  it('reads the dunning schedule: 3 retries over 7 days by default, increasing offsets only', () => {
    const day = 86_400_000;
    expect(loadConfig(base).billing.dunningScheduleMs).toEqual([
      day,
      3 * day,
      7 * day,
    ]);
    expect(
      loadConfig({ ...base, DUNNING_SCHEDULE: '12h,2d' }).billing
        .dunningScheduleMs,
    ).toEqual([day / 2, 2 * day]);
    for (const bad of ['3d,1d', '1d,1d', '0s', 'soon']) {
      expect(() => loadConfig({ ...base, DUNNING_SCHEDULE: bad })).toThrow(
        /DUNNING_SCHEDULE/,
      );
    }
  });

  it("holds a worker's job locks 30 s by default, at least 1 s", () => {
    expect(loadConfig(base).queue.lockDurationMs).toBe(30_000);
    expect(
      loadConfig({ ...base, QUEUE_LOCK_DURATION_MS: '4000' }).queue
        .lockDurationMs,
    ).toBe(4000);
    expect(() =>
      loadConfig({ ...base, QUEUE_LOCK_DURATION_MS: '999' }),
    ).toThrow(/QUEUE_LOCK_DURATION_MS: must be at least 1000/);
  });

  it('treats empty strings as unset', () => {
    expect(loadConfig({ ...base, DATABASE_URL: '' }).database.url).toBeNull();
  });

  it('limits the public routes by default, and refuses a limit that is not a positive integer', () => {
    const { rateLimit } = loadConfig(base);
    expect(rateLimit.pagePerMinute).toBe(120);
    expect(rateLimit.purchase).toEqual({
      perIpPerMinute: 20,
      perCheckoutPerMinute: 300,
      declineWeight: 5,
      lockDeclines: 20,
      lockWindowMs: 600_000,
      lockMs: 900_000,
    });
    expect(
      loadConfig({ ...base, CHECKOUT_LOCK_SECONDS: '30' }).rateLimit.purchase
        .lockMs,
    ).toBe(30_000);
    for (const name of [
      'PAGE_RATE_LIMIT_PER_MINUTE',
      'PURCHASE_RATE_LIMIT_PER_MINUTE',
      'CHECKOUT_RATE_LIMIT_PER_MINUTE',
      'PURCHASE_DECLINE_WEIGHT',
      'CHECKOUT_LOCK_DECLINES',
      'CHECKOUT_LOCK_WINDOW_SECONDS',
      'CHECKOUT_LOCK_SECONDS',
    ]) {
      expect(() => loadConfig({ ...base, [name]: '0' })).toThrow(name);
      expect(() => loadConfig({ ...base, [name]: '1.5' })).toThrow(name);
    }
  });
});

describe('money configuration', () => {
  it('parses tax and currency tables and always knows USD', () => {
    const config = loadConfig({
      ...base,
      TAX_RATES: '{"GB":{"name":"VAT","rate":20}}',
      CURRENCY_RATES: '{"EUR":1.08}',
    });
    expect(config.money.taxRates.GB).toEqual({ name: 'VAT', rate: 20 });
    expect(config.money.currencyRates).toEqual({ EUR: 1.08, USD: 1 });
    expect(config.money.taxInclusive).toBe(false);
  });

  it('refuses malformed tables', () => {
    expect(() => loadConfig({ ...base, TAX_RATES: 'nope' })).toThrow(
      /TAX_RATES/,
    );
    expect(() =>
      loadConfig({ ...base, TAX_RATES: '{"gb":{"name":"VAT","rate":20}}' }),
    ).toThrow(/TAX_RATES/);
    expect(() => loadConfig({ ...base, CURRENCY_RATES: '{"EUR":-1}' })).toThrow(
      /CURRENCY_RATES/,
    );
  });

  it('refreshes exchange rates from the ECB in production, elsewhere only when CURRENCY_RATES_URL is set', () => {
    const production = {
      ...base,
      NODE_ENV: 'production',
      APP_KEY: 'k'.repeat(32),
      MAIL_DISABLED: 'true',
    };
    expect(loadConfig(production).money.currencyRatesUrl).toBe(
      'https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml',
    );
    expect(
      loadConfig({ ...production, CURRENCY_RATES_URL: 'off' }).money
        .currencyRatesUrl,
    ).toBeNull();
    expect(
      loadConfig({ ...base, CURRENCY_RATES_URL: 'off' }).money.currencyRatesUrl,
    ).toBeNull();
    const unset = loadConfig(base).money;
    expect(unset.currencyRatesUrl).toBeNull();
    expect(unset.currencyRatesRefreshIntervalMs).toBe(3_600_000);
    expect(unset.currencyRatesTimeoutMs).toBe(10_000);
    const set = loadConfig({
      ...base,
      CURRENCY_RATES_URL:
        'https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml',
      CURRENCY_RATES_REFRESH_INTERVAL_MS: '600000',
      CURRENCY_RATES_TIMEOUT_MS: '5000',
    }).money;
    expect(set.currencyRatesUrl).toBe(
      'https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml',
    );
    expect(set.currencyRatesRefreshIntervalMs).toBe(600_000);
    expect(set.currencyRatesTimeoutMs).toBe(5000);
    expect(() =>
      loadConfig({ ...base, CURRENCY_RATES_URL: 'ftp://example.com/x.xml' }),
    ).toThrow(/CURRENCY_RATES_URL/);
    expect(() =>
      loadConfig({ ...base, CURRENCY_RATES_TIMEOUT_MS: '0' }),
    ).toThrow(/CURRENCY_RATES_TIMEOUT_MS/);
  });
});

describe('loadConfig: files and invoice fonts', () => {
  it('keeps files under DATA_DIR unless STORAGE_DIR says otherwise', () => {
    const config = loadConfig({ ...base, DATA_DIR: '/tmp/zest-data' });
    expect(config.storage.dir).toBe('/tmp/zest-data/storage');
    expect(config.invoices).toEqual({ font: null, boldFont: null });
    expect(loadConfig({ ...base, STORAGE_DIR: '/srv/files' }).storage.dir).toBe(
      '/srv/files',
    );
  });

  it('refuses an invoice font that does not exist', () => {
    expect(() =>
      loadConfig({ ...base, INVOICE_FONT: '/nonexistent/font.ttf' }),
    ).toThrow(/INVOICE_FONT: no such file/);
  });
});
