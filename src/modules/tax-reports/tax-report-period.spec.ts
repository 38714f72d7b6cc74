import { AppError } from '../../common/app-error';
import { parseTaxPeriod } from './tax-report-period';

describe('parseTaxPeriod', () => {
  it.each([
    ['2026-Q1', '2026-Q1', 'quarter', '2026-01-01', '2026-04-01', '2026-03-31'],
    ['2026-Q3', '2026-Q3', 'quarter', '2026-07-01', '2026-10-01', '2026-09-30'],
    ['2026-q4', '2026-Q4', 'quarter', '2026-10-01', '2027-01-01', '2026-12-31'],
    ['2026-07', '2026-07', 'month', '2026-07-01', '2026-08-01', '2026-07-31'],
    ['2028-02', '2028-02', 'month', '2028-02-01', '2028-03-01', '2028-02-29'],
    ['2027-02', '2027-02', 'month', '2027-02-01', '2027-03-01', '2027-02-28'],
    ['2026-12', '2026-12', 'month', '2026-12-01', '2027-01-01', '2026-12-31'],
    ['2026', '2026', 'year', '2026-01-01', '2027-01-01', '2026-12-31'],
    [
      ' 2026-Q2 ',
      '2026-Q2',
      'quarter',
      '2026-04-01',
      '2026-07-01',
      '2026-06-30',
    ],
  ])('%s is %s from %s to %s', (text, label, kind, from, to, lastDay) => {
    expect(parseTaxPeriod(text)).toEqual({
      label,
      kind,
      from: new Date(`${from}T00:00:00Z`),
      to: new Date(`${to}T00:00:00Z`),
      lastDay,
    });
  });

  it.each([
    '',
    '26-Q3',
    '2026-Q0',
    '2026-Q5',
    '2026-13',
    '2026-00',
    '2026-7',
    '2026-H1',
    '1999',
    '20260',
    '2026-07-01',
    '2026-Q3; DROP TABLE orders',
  ])('refuses %j with tax_report_period_invalid', (text) => {
    let caught: unknown;
    try {
      parseTaxPeriod(text);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(AppError);
    expect((caught as AppError).status).toBe(422);
    expect((caught as AppError).codes).toEqual(['tax_report_period_invalid']);
    expect((caught as AppError).errors[0].parameter).toBe('filter[period]');
  });
});
