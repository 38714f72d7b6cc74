import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { poolQuery, transactionQuery } from '../../database/pool-query';
import { ExchangeRate } from './exchange-rate.entity';
import { RateDay } from './rate-source';

export interface StoredRate {
  rate: number;
  date: string;
  source: string;
}

const LATEST = `
  SELECT rate::text AS rate, rate_date::text AS date, source
    FROM exchange_rates
   WHERE currency = $1
   ORDER BY rate_date DESC
   LIMIT 1`;

/** Every query on exchange_rates. */
@Injectable()
export class ExchangeRateRepository {
  constructor(
    @InjectRepository(ExchangeRate)
    private readonly rates: Repository<ExchangeRate>,
  ) {}

  /**
   * The newest stored rate of a currency: one primary-key lookup, read on
   * the caller's transaction when it has one (a purchase prices inside its
   * own), else on the pool.
   */
  async latest(
    currency: string,
    manager?: EntityManager,
  ): Promise<StoredRate | null> {
    const rows = manager
      ? await transactionQuery<RawRate>(
          manager,
          LATEST,
          [currency],
          'exchange-rates.latest',
        )
      : await poolQuery<RawRate>(
          this.rates.manager.connection,
          LATEST,
          [currency],
          'exchange-rates.latest',
        );
    const row = rows[0];
    return row
      ? { rate: Number(row.rate), date: row.date, source: row.source }
      : null;
  }

  /**
   * The rates of `currencies` on the first stored day from `day` to `day +
   * withinDays` (the day the EUR rate was stored for: every fetched day
   * has it), or an empty list. Primary-key range reads only.
   */
  async firstDayFrom(
    currencies: string[],
    day: string,
    withinDays: number,
  ): Promise<(StoredRate & { currency: string })[]> {
    const rows: (RawRate & { currency: string })[] = await this.rates.query(
      `SELECT currency, rate::text AS rate, rate_date::text AS date, source
         FROM exchange_rates
        WHERE currency = ANY($1)
          AND rate_date = (SELECT min(rate_date) FROM exchange_rates
                            WHERE currency = 'EUR'
                              AND rate_date BETWEEN $2::date AND $2::date + $3::int)`,
      [currencies, day, withinDays],
    );
    return rows.map((row) => ({
      currency: row.currency.trim(),
      rate: Number(row.rate),
      date: row.date,
      source: row.source,
    }));
  }

  /** A whole day in one statement: it is stored entirely or not at all. */
  async saveDay(day: RateDay, fetchedAt: Date): Promise<number> {
    const entries = Object.entries(day.usdPerUnit).filter(
      ([currency]) => currency !== 'USD',
    );
    await this.rates.query(
      `INSERT INTO exchange_rates (currency, rate_date, rate, source, fetched_at)
       SELECT t.currency, $3::date, t.rate, $4, $5
         FROM unnest($1::text[], $2::numeric[]) AS t(currency, rate)
       ON CONFLICT (currency, rate_date) DO UPDATE
         SET rate = EXCLUDED.rate, source = EXCLUDED.source, fetched_at = EXCLUDED.fetched_at`,
      [
        entries.map(([currency]) => currency),
        entries.map(([, rate]) => String(rate)),
        day.date,
        day.source,
        fetchedAt,
      ],
    );
    return entries.length;
  }
}

interface RawRate {
  rate: string;
  date: string;
  source: string;
}
