import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Job } from 'bullmq';
import { API_KEY_USAGE_QUEUE, ApiKeyUsageJob } from './api-key-usage.queue';
import { ApiKeyService } from './api-key.service';

@Processor(API_KEY_USAGE_QUEUE)
export class ApiKeyUsageProcessor extends WorkerHost {
  constructor(private readonly apiKeys: ApiKeyService) {
    super();
  }

  async process(job: Job<ApiKeyUsageJob>): Promise<void> {
    await this.apiKeys.markUsed(job.data.apiKeyId, new Date(job.data.usedAt));
  }
}
