import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger } from '@nestjs/common';
import { Queue } from 'bullmq';

export const API_KEY_USAGE_QUEUE = 'api-key-usage';

export interface ApiKeyUsageJob {
  apiKeyId: number;
  /** ISO timestamp of the request that used the key. */
  usedAt: string;
}

/**
 * Records `last_used_at` off the request path: one job per key and minute
 * (a deterministic job id makes repeats no-ops), so a busy key costs one
 * write a minute instead of one per request.
 */
@Injectable()
export class ApiKeyUsageProducer {
  private readonly logger = new Logger(ApiKeyUsageProducer.name);
  private readonly lastMinute = new Map<number, number>();

  constructor(
    @InjectQueue(API_KEY_USAGE_QUEUE)
    private readonly queue: Queue<ApiKeyUsageJob>,
  ) {}

  async recordUse(apiKeyId: number, usedAt: Date): Promise<void> {
    const minute = Math.floor(usedAt.getTime() / 60_000);
    if (this.lastMinute.get(apiKeyId) === minute) return;
    this.lastMinute.set(apiKeyId, minute);
    if (this.lastMinute.size > 10_000) this.lastMinute.clear();
    await this.queue.add(
      'touch',
      { apiKeyId, usedAt: usedAt.toISOString() },
      {
        jobId: `touch-${apiKeyId}-${minute}`,
        removeOnComplete: 1000,
        removeOnFail: 1000,
        attempts: 5,
        backoff: { type: 'exponential', delay: 1000 },
      },
    );
  }

  /** For the request path: a queue outage must never fail an API call. */
  recordUseInBackground(apiKeyId: number, usedAt: Date) {
    this.recordUse(apiKeyId, usedAt).catch((error: unknown) =>
      this.logger.warn(
        { err: error, apiKeyId },
        'Could not enqueue API key usage',
      ),
    );
  }
}
