import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { ExchangeRateRepository } from './exchange-rate.repository';
import {
  MalformedRates,
  RATE_SOURCE,
  RateDay,
  type RateSource,
  RateSourceUnavailable,
} from './rate-source';

export type RefreshOutcome =
  | { status: 'disabled' }
  | { status: 'saved'; date: string; currencies: number }
  | { status: 'unavailable' | 'refused'; reason: string };

/**
 * Fetches the configured source's latest day and stores it. A failed fetch
 * or a refused document changes nothing: pricing goes on with the last known
 * rates, a warning is logged, and the next scheduled run tries again. The
 * fetch happens before, and outside, the one statement that stores the day.
 */
@Injectable()
export class ExchangeRateRefresh {
  private readonly logger = new Logger(ExchangeRateRefresh.name);

  constructor(
    private readonly rates: ExchangeRateRepository,
    private readonly clock: Clock,
    @Optional()
    @Inject(RATE_SOURCE)
    private readonly source: RateSource | null,
  ) {}

  get enabled(): boolean {
    return this.source !== null;
  }

  async refresh(): Promise<RefreshOutcome> {
    if (!this.source) return { status: 'disabled' };
    let day: RateDay;
    try {
      day = await this.source.fetchLatest();
    } catch (error) {
      const refused = error instanceof MalformedRates;
      if (!refused && !(error instanceof RateSourceUnavailable)) throw error;
      this.logger.warn(
        `Exchange rates not refreshed from ${this.source.name}: ${refused ? 'document refused' : 'source unavailable'} (${error.message}); the last known rates stay in use`,
      );
      return {
        status: refused ? 'refused' : 'unavailable',
        reason: error.message,
      };
    }
    const currencies = await this.rates.saveDay(day, this.clock.now());
    this.logger.log(
      `Stored ${currencies} exchange rates of ${day.date} from ${this.source.name}`,
    );
    return { status: 'saved', date: day.date, currencies };
  }
}
