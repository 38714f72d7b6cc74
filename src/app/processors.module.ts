import { Module } from '@nestjs/common';
import { IdempotencyPurgeProcessor } from '../http/idempotency/idempotency-purge.processor';
import { IdempotencyModule } from '../http/idempotency/idempotency.module';
import { AccountModule } from '../modules/account/account.module';
import { ApiKeyUsageProcessor } from '../modules/account/api-key-usage.processor';

/** Every BullMQ processor. Loaded by the worker (and by the embedded single process), never by the API. */
@Module({
  imports: [AccountModule, IdempotencyModule],
  providers: [ApiKeyUsageProcessor, IdempotencyPurgeProcessor],
})
export class ProcessorsModule {}
