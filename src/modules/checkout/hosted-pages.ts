import { Logger } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import { formatMoney } from '../../common/money';
import { OrderView } from '../order/order.repository';
import { PageTotals, renderMessagePage } from './checkout.page';
import { Totals } from './pricing';

/**
 * A page; `declined` marks the form's answer to a declined card, `stripe`
 * a page that runs Stripe.js (its Content-Security-Policy allows it).
 */
export type HostedPage = {
  kind: 'html';
  status: number;
  html: string;
  declined?: boolean;
  stripe?: boolean;
};

export type HostedResponse =
  | HostedPage
  | { kind: 'redirect'; location: string }
  /** The JSON purchase's order, rendered as a JSON:API document by the controller. */
  | { kind: 'order'; order: OrderView }
  /** A plain JSON answer (the Stripe page's script). */
  | { kind: 'json'; body: unknown };

const logger = new Logger('HostedCheckout');

/** A page with a title and one message (a bad link, a paused checkout …). */
export function messagePage(
  status: number,
  title: string,
  message: string,
): HostedResponse {
  return { kind: 'html', status, html: renderMessagePage(title, message) };
}

/** An AppError met before a page could be built (unknown checkout, bad link). */
export function errorPage(error: AppError): HostedResponse {
  logger.debug(`Hosted checkout refused: ${error.message}`);
  const title = error.status === 404 ? 'Not found' : 'Unavailable';
  return messagePage(error.status, title, error.message);
}

/** A quote's or an order's totals as the pages show them, in its currency. */
export function pageTotals(totals: Totals): PageTotals {
  const money = (cents: number) => formatMoney(cents, totals.currency);
  return {
    subtotal: money(totals.subtotal),
    discount: totals.discountTotal > 0 ? money(totals.discountTotal) : null,
    setupFee: totals.setupFee > 0 ? money(totals.setupFee) : null,
    tax: totals.taxName !== null ? money(totals.tax) : null,
    taxLabel: totals.taxName
      ? `${totals.taxName} ${totals.taxRate}%${totals.taxInclusive ? ' (included)' : ''}`
      : 'Tax',
    total: money(totals.total),
  };
}
