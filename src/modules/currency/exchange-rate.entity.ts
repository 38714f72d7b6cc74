import { Column, Entity, PrimaryColumn } from 'typeorm';
import { dateOnly } from '../../common/date-only';

/** One fetched day's rate of one currency (see the exchange-rates migration). */
@Entity('exchange_rates')
export class ExchangeRate {
  @PrimaryColumn({ type: 'char', length: 3 })
  currency: string;

  /** The day the source published the rate for, YYYY-MM-DD. */
  @PrimaryColumn({ name: 'rate_date', type: 'date', transformer: dateOnly })
  rateDate: string;

  /** USD per one unit of `currency`, 10 decimal places. */
  @Column({ type: 'numeric' })
  rate: string;

  @Column({ type: 'text' })
  source: string;

  @Column({ name: 'fetched_at', type: 'timestamptz' })
  fetchedAt: Date;
}
