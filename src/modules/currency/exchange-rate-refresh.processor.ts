import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import {
  Inject,
  Logger,
  OnApplicationBootstrap,
  OnModuleDestroy,
} from '@nestjs/common';
import { Queue } from 'bullmq';
import { RepeatingTask, repeatEvery } from '../../common/repeat-every';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import {
  EXCHANGE_RATE_REFRESH_QUEUE,
  EXCHANGE_RATE_REFRESH_SCHEDULER,
} from './exchange-rate-refresh.queue';
import {
  ExchangeRateRefresh,
  RefreshOutcome,
} from './exchange-rate-refresh.service';

/**
 * Refreshes exchange rates on a BullMQ job scheduler every
 * CURRENCY_RATES_REFRESH_INTERVAL_MS while CURRENCY_RATES_URL is set. Every
 * worker upserts the same scheduler id (one schedule however many run), again
 * periodically in case Redis lost it; with no URL the schedule is removed, so
 * unsetting the variable stops the job. A failed fetch completes the job
 * (nothing to retry sooner than the next run).
 */
@Processor(EXCHANGE_RATE_REFRESH_QUEUE)
export class ExchangeRateRefreshProcessor
  extends WorkerHost
  implements OnApplicationBootstrap, OnModuleDestroy
{
  private readonly logger = new Logger(ExchangeRateRefreshProcessor.name);
  private schedules: RepeatingTask | undefined;

  constructor(
    private readonly refresher: ExchangeRateRefresh,
    @InjectQueue(EXCHANGE_RATE_REFRESH_QUEUE) private readonly queue: Queue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  async onApplicationBootstrap() {
    if (!this.refresher.enabled) {
      await this.queue
        .removeJobScheduler(EXCHANGE_RATE_REFRESH_SCHEDULER)
        .catch((error: unknown) =>
          this.logger.warn(
            { err: error },
            'Could not remove the exchange-rate refresh schedule',
          ),
        );
      return;
    }
    const every = this.config.money.currencyRatesRefreshIntervalMs;
    this.schedules = repeatEvery(
      Math.max(every, 10_000),
      () =>
        this.queue.upsertJobScheduler(
          EXCHANGE_RATE_REFRESH_SCHEDULER,
          { every },
          {
            name: 'refresh',
            opts: { removeOnComplete: 100, removeOnFail: 100 },
          },
        ),
      (error) =>
        this.logger.warn(
          { err: error },
          'Could not schedule exchange-rate refreshes',
        ),
    );
    await this.schedules.first;
  }

  onModuleDestroy() {
    this.schedules?.stop();
  }

  process(): Promise<RefreshOutcome> {
    return this.refresher.refresh();
  }
}
