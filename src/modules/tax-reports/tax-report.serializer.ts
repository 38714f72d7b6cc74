import { Inject, Injectable } from '@nestjs/common';
import { formatTimestamp } from '../../common/timestamps';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { JSON_API_VERSION } from '../../http/json-api/document';
import { taxReportCsv } from './tax-report-csv';
import type { TaxReportRow } from './tax-report-rows';
import type { TaxReport } from './tax-report.service';

/** A row as the document's `rows` and the CSV's columns name it. */
export function renderRow(row: TaxReportRow) {
  return {
    country: row.country,
    region: row.region,
    tax_name: row.taxName,
    tax_rate: row.taxRate,
    reverse_charge: row.reverseCharge,
    currency: row.currency,
    sales: row.sales,
    refunds: row.refunds,
    taxable_amount: row.taxableAmount,
    tax: row.tax,
    refunded_taxable_amount: row.refundedTaxableAmount,
    refunded_tax: row.refundedTax,
    net_taxable_amount: row.netTaxableAmount,
    net_tax: row.netTax,
    net_taxable_amount_eur: row.netTaxableAmountEur,
    net_tax_eur: row.netTaxEur,
  };
}

/**
 * A report is one `tax-reports` resource whose `rows` attribute holds its
 * lines: the lines have no identity of their own (no route reads one), the
 * whole is what a client files, and one document keeps the period, the
 * conversions and the lines together without paging.
 */
@Injectable()
export class TaxReportSerializer {
  private readonly baseUrl: string;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.baseUrl = `${config.http.publicBaseUrl}/v1`;
  }

  url(report: TaxReport): string {
    const query = new URLSearchParams({
      'filter[store_id]': String(report.store.id),
      'filter[period]': report.period.label,
    });
    return `${this.baseUrl}/tax-reports?${query.toString()}`;
  }

  document(report: TaxReport) {
    const self = this.url(report);
    return {
      jsonapi: JSON_API_VERSION,
      links: { self },
      data: {
        type: 'tax-reports',
        id: `${report.store.id}-${report.period.label}`,
        attributes: this.attributes(report),
        links: { self },
      },
    };
  }

  attributes(report: TaxReport) {
    return {
      store_id: report.store.id,
      period: report.period.label,
      starts_at: formatTimestamp(report.period.from),
      ends_at: formatTimestamp(report.period.to),
      currency: report.store.currency,
      test_mode: report.testMode,
      rows: report.rows.map(renderRow),
      eur_conversions: [...report.conversions.values()]
        .sort((a, b) => (a.currency < b.currency ? -1 : 1))
        .map((conversion) => ({
          currency: conversion.currency,
          eur_per_unit: conversion.eurPerUnit,
          rate_date: conversion.rateDate,
          source: conversion.source,
        })),
      generated_at: formatTimestamp(report.generatedAt),
    };
  }

  csv(report: TaxReport): string {
    return taxReportCsv(report.period.label, report.rows, report.conversions);
  }
}
