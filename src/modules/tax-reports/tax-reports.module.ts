import { Module } from '@nestjs/common';
import { CurrencyModule } from '../currency/currency.module';
import { TaxReportController } from './tax-report.controller';
import { TaxReportRepository } from './tax-report.repository';
import { TaxReportSerializer } from './tax-report.serializer';
import { TaxReportService } from './tax-report.service';

/**
 * Tax reports for filing (read only, an extension): `GET /v1/tax-reports`
 * and `cli tax:report`, over orders, subscription invoices and their
 * refunds.
 */
@Module({
  imports: [CurrencyModule],
  controllers: [TaxReportController],
  providers: [TaxReportRepository, TaxReportService, TaxReportSerializer],
  exports: [TaxReportService, TaxReportSerializer],
})
export class TaxReportsModule {}
