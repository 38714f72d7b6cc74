import { escapeHtml } from '../../http/html/html';
import { htmlPage } from '../../http/html/layout';
import {
  PortalDownload,
  PortalLicenseKey,
  PortalOrder,
  PortalSubscription,
} from './customer-activity';
import { CustomerPortal } from './customer.service';

const DATE = new Intl.DateTimeFormat('en-US', {
  dateStyle: 'medium',
  timeZone: 'UTC',
});

const date = (value: Date | null) => (value ? DATE.format(value) : '—');

/** Only absolute http(s) links become anchors; anything else is dropped. */
function link(url: string | null, label: string): string {
  if (!url || !/^https?:\/\//i.test(url)) return '—';
  return `<a href="${escapeHtml(url)}" rel="noopener noreferrer">${escapeHtml(label)}</a>`;
}

function table(headers: string[], rows: string[][]): string {
  const head = headers.map((h) => `<th>${escapeHtml(h)}</th>`).join('');
  // Each cell names its column: a phone shows rows as labelled cards.
  const body = rows
    .map(
      (cells) =>
        `<tr>${cells.map((c, i) => c.replace(/^<td/, `<td data-label="${escapeHtml(headers[i])}"`)).join('')}</tr>`,
    )
    .join('\n');
  return `<div class="scroll"><table class="cards">\n<thead><tr>${head}</tr></thead>\n<tbody>\n${body}\n</tbody>\n</table></div>`;
}

const cell = (value: string | number, className?: string) =>
  `<td${className ? ` class="${className}"` : ''}>${escapeHtml(value)}</td>`;

function section(
  title: string,
  empty: string,
  headers: string[],
  rows: string[][],
): string {
  const content =
    rows.length > 0
      ? table(headers, rows)
      : `<p class="empty">${escapeHtml(empty)}</p>`;
  return `<section>\n<h2>${escapeHtml(title)}</h2>\n${content}\n</section>`;
}

const subscriptionRow = (s: PortalSubscription) => [
  `<td><span>${escapeHtml(s.productName)}${s.terms ? `<br><span class="terms" data-terms>${escapeHtml(s.terms)}</span>` : ''}</span></td>`,
  cell(s.variantName),
  cell(s.status),
  cell(s.priceFormatted ?? '—'),
  cell(date(s.renewsAt)),
  cell(date(s.endsAt)),
  `<td>${link(s.manageUrl, 'Manage')}</td>`,
];

const orderRow = (o: PortalOrder) => [
  cell(`#${o.orderNumber}`),
  cell(date(o.createdAt)),
  cell(o.productName),
  cell(o.totalFormatted),
  cell(o.status),
  `<td>${link(o.receiptUrl, 'Receipt')}</td>`,
  `<td>${link(o.invoiceUrl, 'PDF')}</td>`,
];

function instancesCell(k: PortalLicenseKey): string {
  const usage = `${k.activationUsage} / ${k.activationLimit === null ? 'unlimited' : k.activationLimit}`;
  const forms = k.instances
    .map(
      (i) =>
        `<form method="post" action="${escapeHtml(i.deactivateUrl)}" class="inline" data-instance>${escapeHtml(i.name)} <span class="terms">since ${escapeHtml(date(i.activatedAt))}</span> <button type="submit">Deactivate<span class="visually-hidden"> ${escapeHtml(i.name)}</span></button></form>`,
    )
    .join('');
  return `<td><span>${escapeHtml(usage)}${forms}</span></td>`;
}

const licenseKeyRow = (k: PortalLicenseKey) => [
  cell(k.key, 'mono'),
  cell(k.productName),
  cell(k.status),
  instancesCell(k),
  cell(date(k.expiresAt)),
];

const downloadRow = (d: PortalDownload) => [
  `<td>${link(d.url, d.name)}</td>`,
  cell(d.size),
  cell(`#${d.orderNumber}`),
  cell(d.remaining === null ? 'unlimited' : d.remaining),
];

/** The customer portal: every value escaped, no scripts. */
export function renderCustomerPortal(portal: CustomerPortal): string {
  const { customer, storeName, lists } = portal;
  const title = `${storeName || 'Store'}: your purchases`;
  const body = [
    `<div class="intro"><h1>Your purchases</h1>
<p class="sub">${escapeHtml(customer.name)} &lt;${escapeHtml(customer.email)}&gt;${customer.testMode ? ' (test mode)' : ''}</p></div>`,
    section(
      'Subscriptions',
      'No subscriptions.',
      ['Product', 'Plan', 'Status', 'Price', 'Renews', 'Ends', 'Manage'],
      lists.subscriptions.map(subscriptionRow),
    ),
    section(
      'Orders',
      'No orders.',
      ['Order', 'Date', 'Product', 'Total', 'Status', 'Receipt', 'Invoice'],
      lists.orders.map(orderRow),
    ),
    section(
      'Downloads',
      'No downloads.',
      ['File', 'Size', 'Order', 'Downloads left'],
      lists.downloads.map(downloadRow),
    ),
    section(
      'License keys',
      'No license keys.',
      ['Key', 'Product', 'Status', 'Activations', 'Expires'],
      lists.licenseKeys.map(licenseKeyRow),
    ),
  ].join('\n');
  return htmlPage(title, body, { storeName });
}
