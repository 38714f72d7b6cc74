import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { crossRate } from '../../common/money';
import type { Principal } from '../../common/principal';
import { ExchangeRates } from '../currency/exchange-rates.service';
import { TaxReportErrors } from './tax-report.errors';
import { parseTaxPeriod, TaxPeriod } from './tax-report-period';
import type { TaxReportQuery } from './tax-report-query';
import { EurConversion, reportRows, TaxReportRow } from './tax-report-rows';
import { TaxReportRepository, TaxReportStore } from './tax-report.repository';

export interface TaxReport {
  store: TaxReportStore;
  testMode: boolean;
  period: TaxPeriod;
  rows: TaxReportRow[];
  /** One per currency of the rows (and the store's), by currency. */
  conversions: Map<string, EurConversion>;
  generatedAt: Date;
}

/**
 * The ECB publishes every TARGET working day; the longest gap (Good Friday
 * to Easter Monday, or the turn of the year) is four days. A stored day
 * further from the period's end is not "the next day of publication".
 */
const NEXT_PUBLICATION_WITHIN_DAYS = 7;

/**
 * Tax reports for filing (read only): the tax a store's sales took in a
 * period, per buyer country and region, rate, tax name and reverse charge,
 * net of the refunds made in the period, in the sales' currency and in EUR.
 */
@Injectable()
export class TaxReportService {
  constructor(
    private readonly reports: TaxReportRepository,
    private readonly rates: ExchangeRates,
    private readonly clock: Clock,
  ) {}

  async report(caller: Principal, query: TaxReportQuery): Promise<TaxReport> {
    const period = parseTaxPeriod(query.period);
    const store = await this.reports.findStore(caller, query.storeId);
    if (!store) throw TaxReportErrors.storeNotFound();
    store.currency = store.currency.trim();
    // One aggregate statement per source, each a snapshot of its own.
    const orders = await this.reports.orders(
      caller,
      store.id,
      period.from,
      period.to,
    );
    const invoices = await this.reports.invoices(
      caller,
      store.id,
      period.from,
      period.to,
    );
    const currencies = new Set([
      store.currency,
      ...[...orders, ...invoices].map((row) => row.currency.trim()),
    ]);
    const conversions = await this.conversions([...currencies], period);
    return {
      store,
      testMode: caller.testMode,
      period,
      rows: reportRows([orders, invoices], conversions),
      conversions,
      generatedAt: this.clock.now(),
    };
  }

  /**
   * Each currency's rate to EUR. OSS returns are in euros, converted "using
   * the exchange rates published by the European Central Bank for the last
   * day of the tax period, or, if there is no publication on that day, on
   * the next day of publication" (VAT Directive 2006/112/EC, art. 369h and
   * 366): so, once the period is over and the refresh job has stored that
   * day, every sale of the period converts at that one rate, whatever rate
   * each sale froze for its USD figures. Until then (an open period, no
   * refresh configured, a currency the ECB does not quote), the newest
   * rates the currency module knows stand in and the conversion says
   * `latest`: provisional figures.
   */
  private async conversions(
    currencies: string[],
    period: TaxPeriod,
  ): Promise<Map<string, EurConversion>> {
    const conversions = new Map<string, EurConversion>();
    const foreign = currencies.filter((currency) => currency !== 'EUR');
    if (currencies.includes('EUR'))
      conversions.set('EUR', {
        currency: 'EUR',
        eurPerUnit: '1',
        rateDate: null,
        source: 'identity',
      });
    if (foreign.length === 0) return conversions;
    const ended = period.to.getTime() <= this.clock.now().getTime();
    const day = ended
      ? await this.rates.fetchedDayFrom(
          foreign,
          period.lastDay,
          NEXT_PUBLICATION_WITHIN_DAYS,
        )
      : null;
    const eur = day?.usdPerUnit.get('EUR');
    for (const currency of foreign) {
      const usdPerUnit =
        currency === 'USD' ? '1' : day?.usdPerUnit.get(currency);
      if (day && eur && usdPerUnit) {
        conversions.set(currency, {
          currency,
          eurPerUnit: crossRate(usdPerUnit, eur),
          rateDate: day.date,
          source: 'ecb',
        });
        continue;
      }
      const latest = await this.latest(currency);
      if (latest) conversions.set(currency, latest);
    }
    return conversions;
  }

  private async latest(currency: string): Promise<EurConversion | null> {
    const [from, eur] = await Promise.all([
      this.rates.find(currency),
      this.rates.find('EUR'),
    ]);
    if (!from || !eur) return null;
    const dates = [from.date, eur.date].filter(
      (date): date is string => date !== null,
    );
    return {
      currency,
      eurPerUnit: crossRate(from.rate, eur.rate),
      rateDate: dates.sort().at(-1) ?? null,
      source: 'latest',
    };
  }
}
