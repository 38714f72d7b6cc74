import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { MetricsService } from './metrics.service';

/** One registry per application; every module may count into it. */
@Global()
@Module({
  imports: [DiscoveryModule],
  providers: [MetricsService],
  exports: [MetricsService],
})
export class MetricsModule {}
