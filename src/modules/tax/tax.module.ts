import { Module } from '@nestjs/common';
import { BuiltinTaxProvider } from './builtin-tax.provider';
import { TaxEngine } from './tax-engine';
import { TAX_PROVIDER } from './tax-provider';

/**
 * Tax: the engine that decides a sale's tax (`TaxEngine`) over a
 * `TaxProvider`; the built-in one answers from tables shipped with the code.
 */
@Module({
  providers: [
    { provide: TAX_PROVIDER, useClass: BuiltinTaxProvider },
    TaxEngine,
  ],
  exports: [TaxEngine],
})
export class TaxModule {}
