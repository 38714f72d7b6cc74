import { Command, integer, required, TextOutput } from '../command';
import { application, mode, MODE_OPTION, storeOwner } from './shared';

/** Tax reports for filing. */
export const TAX_REPORTS_COMMANDS: Record<string, Command> = {
  'tax:report': {
    description:
      "Print a store's tax for a period per country and rate, net of the period's refunds, in its currency and EUR (as GET /v1/tax-reports).",
    options: {
      store: {
        type: 'string',
        value: '<id>',
        integer: true,
        required: true,
        description: 'The store id.',
      },
      period: {
        type: 'string',
        value: '<2026-Q3|2026-07|2026>',
        required: true,
        description: 'A quarter, a month or a year (UTC).',
      },
      mode: MODE_OPTION,
      csv: {
        type: 'boolean',
        description:
          'Print the CSV that Accept: text/csv gets (with --json: {"csv": "…"}).',
      },
    },
    table: 'rows',
    example: 'tax:report --store 1 --period 2026-Q3 --csv',
    async run(values, { app, query }) {
      const storeId = integer(values, 'store');
      const period = required(values, 'period');
      const testMode = mode(values);
      const owner = await storeOwner(query, storeId);
      const { TaxReportService, TaxReportSerializer } = await application();
      const context = await app();
      const report = await context
        .get(TaxReportService)
        .report({ ...owner, testMode }, { storeId, period });
      const serializer = context.get(TaxReportSerializer);
      if (values.csv === true)
        return new TextOutput(serializer.csv(report), 'csv');
      return serializer.attributes(report);
    },
  },
};
