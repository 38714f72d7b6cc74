import { Module } from '@nestjs/common';
import { AccountModule } from '../modules/account/account.module';
import { ApiKeyUsageProcessor } from '../modules/account/api-key-usage.processor';
import { BillingModule } from '../modules/billing/billing.module';
import { RenewalProcessor } from '../modules/billing/renewal.processor';

/** Every BullMQ processor. Loaded by the worker (and by the embedded single process), never by the API. */
@Module({
  imports: [AccountModule, BillingModule],
  providers: [ApiKeyUsageProcessor, RenewalProcessor],
})
export class ProcessorsModule {}
