import type { AppConfig } from '../../config/app-config';
import { Command, UsageError, Values } from '../command';
import { application } from './shared';

function urlOption(values: Values): string | undefined {
  const raw = values.url;
  if (raw === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = typeof raw === 'string' ? new URL(raw) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:'))
    throw new UsageError('--url must be an http(s) URL');
  return url.href;
}

/** Exchange rates. */
export const RATES_COMMANDS: Record<string, Command> = {
  'rates:refresh': {
    description:
      "Fetch the ECB's daily reference rates now and store the day, as the worker's scheduled job does (a failure keeps the last known rates).",
    options: {
      url: {
        type: 'string',
        value: '<url>',
        description:
          "Fetch this eurofxref-daily.xml instead (default: CURRENCY_RATES_URL, else the ECB's own).",
      },
    },
    example: 'rates:refresh',
    async run(values, { app, progress }) {
      const explicit = urlOption(values);
      const {
        APP_CONFIG,
        Clock,
        ECB_DAILY_RATES_URL,
        EcbRateSource,
        ExchangeRateRefresh,
        ExchangeRateRepository,
      } = await application();
      const context = await app();
      const { money } = context.get<AppConfig>(APP_CONFIG);
      const url = explicit ?? money.currencyRatesUrl ?? ECB_DAILY_RATES_URL;
      const source = new EcbRateSource(url, money.currencyRatesTimeoutMs);
      progress(`Fetching the ${source.name}…`);
      // The fetch runs before, and outside, the one statement that stores it.
      const outcome = await new ExchangeRateRefresh(
        context.get(ExchangeRateRepository),
        context.get(Clock),
        source,
      ).refresh();
      if (outcome.status !== 'saved')
        throw new Error(
          `Exchange rates not refreshed from ${url}: ${
            outcome.status === 'refused'
              ? 'document refused'
              : 'source unavailable'
          } (${outcome.status === 'disabled' ? 'disabled' : outcome.reason}); the last known rates stay in use`,
        );
      return { date: outcome.date, currencies: outcome.currencies, url };
    },
  },
};
