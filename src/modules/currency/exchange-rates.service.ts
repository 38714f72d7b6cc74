import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { ExchangeRateRepository } from './exchange-rate.repository';
import { SHIPPED_RATES } from './shipped-rates';
import { usdPerUnit } from './usd-rates';
import { CurrencyErrors } from './currency.errors';

/** Where a rate came from, in the order the lookup tries them. */
export type RateOrigin = 'usd' | 'override' | 'fetched' | 'shipped';

/** USD per one unit of a currency, with the day it is for. */
export interface UsdRate {
  currency: string;
  rate: number;
  /** YYYY-MM-DD; null for USD itself and for CURRENCY_RATES, which carry no date. */
  date: string | null;
  origin: RateOrigin;
}

/**
 * The one owner of "how many US dollars is one unit of this currency".
 * Precedence: CURRENCY_RATES (the operator's word) > the newest rate the
 * refresh job stored > the table shipped with Zest. Checkout pricing,
 * renewals and reports all ask here; a record freezes what it was told.
 */
@Injectable()
export class ExchangeRates {
  private readonly shipped = new Map(
    Object.entries(SHIPPED_RATES.unitsPerUsd).map(([currency, units]) => [
      currency,
      usdPerUnit(units),
    ]),
  );

  constructor(
    private readonly stored: ExchangeRateRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The shipped table's day and source, for operators and docs. */
  get shippedTable(): { date: string; source: string } {
    return { date: SHIPPED_RATES.date, source: SHIPPED_RATES.source };
  }

  /**
   * Whether a store may sell in this currency: a rate is known without
   * asking the database (shipped or configured), so a store never starts
   * with a currency that only a fetch happened to bring.
   */
  supports(currency: string): boolean {
    return (
      currency === 'USD' ||
      this.override(currency) !== undefined ||
      this.shipped.has(currency)
    );
  }

  /** The rate to use now, or null when none is known. */
  async find(
    currency: string,
    manager?: EntityManager,
  ): Promise<UsdRate | null> {
    if (currency === 'USD')
      return { currency, rate: 1, date: null, origin: 'usd' };
    const override = this.override(currency);
    if (override !== undefined)
      return { currency, rate: override, date: null, origin: 'override' };
    const fetched = await this.stored.latest(currency, manager);
    if (fetched)
      return {
        currency,
        rate: fetched.rate,
        date: fetched.date,
        origin: 'fetched',
      };
    const shipped = this.shipped.get(currency);
    if (shipped !== undefined)
      return {
        currency,
        rate: shipped,
        date: SHIPPED_RATES.date,
        origin: 'shipped',
      };
    return null;
  }

  /** `find`, refusing with 422 when no rate is known. */
  async usdRate(currency: string, manager?: EntityManager): Promise<UsdRate> {
    const found = await this.find(currency, manager);
    if (!found) throw CurrencyErrors.noUsdRate(currency);
    return found;
  }

  /**
   * The fetched (ECB) rates of `currencies` and EUR on the first day from
   * `day` to `day + withinDays` that the refresh job stored: the rate "for
   * that day, or if there is no publication on that day, the next day of
   * publication" that OSS returns convert with. A currency the ECB does not
   * quote is missing from the answer; null when no such day is stored.
   */
  async fetchedDayFrom(
    currencies: string[],
    day: string,
    withinDays: number,
  ): Promise<{ date: string; usdPerUnit: Map<string, string> } | null> {
    const rows = await this.stored.firstDayFrom(
      [...new Set([...currencies, 'EUR'])],
      day,
      withinDays,
    );
    if (rows.length === 0) return null;
    return {
      date: rows[0].date,
      usdPerUnit: new Map(rows.map((row) => [row.currency, String(row.rate)])),
    };
  }

  private override(currency: string): number | undefined {
    const rates = this.config.money.currencyRates;
    return Object.hasOwn(rates, currency) ? rates[currency] : undefined;
  }
}
