import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HEALTH_QUEUE, HealthService } from './health.service';

@Module({
  imports: [
    TerminusModule.forRoot({ logger: false }),
    BullModule.registerQueue({ name: HEALTH_QUEUE }),
  ],
  providers: [HealthService],
  exports: [HealthService],
})
export class HealthModule {}
