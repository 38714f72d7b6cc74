import { Module } from '@nestjs/common';
import { PaymentModule } from '../payment/payment.module';
import { StripeTaxService } from './stripe-tax.service';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { VIES_CLIENT, ViesClient } from './vies-client';
import { BuiltinTaxProvider } from './builtin-tax.provider';
import { TaxEngine } from './tax-engine';
import { TAX_PROVIDER } from './tax-provider';

/**
 * Tax: the engine that decides a sale's tax (`TaxEngine`) over a
 * `TaxProvider`; the built-in one answers from tables shipped with the code,
 * and a store may choose Stripe Tax instead (`StripeTaxService`).
 */
@Module({
  imports: [PaymentModule],
  providers: [
    StripeTaxService,
    { provide: TAX_PROVIDER, useClass: BuiltinTaxProvider },
    {
      provide: VIES_CLIENT,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): ViesClient | null =>
        config.money.vatValidation === 'online'
          ? new ViesClient(config.money.viesUrl, config.money.viesTimeoutMs)
          : null,
    },
    TaxEngine,
  ],
  exports: [TaxEngine, StripeTaxService],
})
export class TaxModule {}
