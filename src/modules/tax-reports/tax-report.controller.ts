import { Controller, Get, Headers, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { RawQuery } from '../../common/list-query';
import type { Principal } from '../../common/principal';
import { CurrentPrincipal } from '../../http/auth/principal';
import { JSON_API_MEDIA_TYPE } from '../../http/json-api/document';
import { NotJsonApi } from '../../http/json-api/not-json-api.decorator';
import { taxReportQuery } from './tax-report-query';
import { TaxReportSerializer } from './tax-report.serializer';
import { TaxReportService } from './tax-report.service';

/** `Accept: text/csv` (alone or preferred to JSON:API) asks for the CSV. */
function wantsCsv(accept: string | undefined): boolean {
  const types = (accept ?? '')
    .split(',')
    .map((part) => part.split(';')[0].trim().toLowerCase());
  const csv = types.indexOf('text/csv');
  const json = types.indexOf(JSON_API_MEDIA_TYPE);
  return csv !== -1 && (json === -1 || csv < json);
}

@Controller('v1/tax-reports')
export class TaxReportController {
  constructor(
    private readonly reports: TaxReportService,
    private readonly serializer: TaxReportSerializer,
  ) {}

  /** JSON:API by default, CSV for `Accept: text/csv`. */
  @Get()
  @NotJsonApi()
  async report(
    @CurrentPrincipal() principal: Principal,
    @Query() query: RawQuery,
    @Headers('accept') accept: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const report = await this.reports.report(principal, taxReportQuery(query));
    void reply.header('vary', 'Accept');
    if (!wantsCsv(accept)) {
      void reply.header('content-type', JSON_API_MEDIA_TYPE);
      return this.serializer.document(report);
    }
    void reply
      .header('content-type', 'text/csv; charset=utf-8; header=present')
      .header(
        'content-disposition',
        `attachment; filename="tax-report-${report.store.id}-${report.period.label}.csv"`,
      );
    return this.serializer.csv(report);
  }
}
