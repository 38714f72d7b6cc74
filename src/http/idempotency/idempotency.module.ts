import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { IDEMPOTENCY_PURGE_QUEUE } from './idempotency-purge.queue';
import { IdempotencyRepository } from './idempotency.repository';
import { IdempotencyService } from './idempotency.service';

/** Idempotency-Key storage: used by the API's interceptor and the worker's purge job. */
@Module({
  imports: [BullModule.registerQueue({ name: IDEMPOTENCY_PURGE_QUEUE })],
  providers: [IdempotencyRepository, IdempotencyService],
  exports: [IdempotencyService, BullModule],
})
export class IdempotencyModule {}
