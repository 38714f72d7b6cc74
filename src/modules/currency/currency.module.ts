import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { EcbRateSource } from './ecb-rate-source';
import { ExchangeRate } from './exchange-rate.entity';
import { ExchangeRateRefresh } from './exchange-rate-refresh.service';
import { EXCHANGE_RATE_REFRESH_QUEUE } from './exchange-rate-refresh.queue';
import { ExchangeRateRepository } from './exchange-rate.repository';
import { ExchangeRates } from './exchange-rates.service';
import { RATE_SOURCE, RateSource } from './rate-source';

/**
 * Exchange rates: the shipped table, the operator's CURRENCY_RATES, and the
 * days the refresh job fetched. Other modules call `ExchangeRates`; the
 * refresh processor is loaded by the worker only.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([ExchangeRate]),
    BullModule.registerQueue({ name: EXCHANGE_RATE_REFRESH_QUEUE }),
  ],
  providers: [
    ExchangeRateRepository,
    ExchangeRates,
    ExchangeRateRefresh,
    {
      provide: RATE_SOURCE,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): RateSource | null =>
        config.money.currencyRatesUrl
          ? new EcbRateSource(
              config.money.currencyRatesUrl,
              config.money.currencyRatesTimeoutMs,
            )
          : null,
    },
  ],
  // BullModule: the queue, for the processor the worker loads.
  exports: [ExchangeRates, ExchangeRateRefresh, BullModule],
})
export class CurrencyModule {}
