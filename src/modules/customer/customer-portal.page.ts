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

export interface PortalNotice {
  kind: 'success' | 'error';
  text: string;
}

function notice(n: PortalNotice | null): string {
  if (!n) return '';
  return n.kind === 'error'
    ? `<p class="notice error" role="alert">${escapeHtml(n.text)}</p>`
    : `<p class="notice" role="status">${escapeHtml(n.text)}</p>`;
}

function input(
  id: string,
  label: string,
  value: string | null,
  attributes = '',
): string {
  return `<div><label for="${id}">${escapeHtml(label)}</label>
<input id="${id}" name="${id}" type="text" value="${escapeHtml(value ?? '')}"${attributes}></div>`;
}

/** The billing address and tax number, saved as PATCH /v1/customers saves them. */
function billingSection(portal: CustomerPortal): string {
  const c = portal.customer;
  const [line1, ...rest] = (c.address ?? '').split('\n');
  return `<section>
<h2>Billing details</h2>
<p class="sub">Your address as a buyer; your next renewals are taxed by it.</p>
<form method="post" action="${escapeHtml(portal.billingAction)}" id="billing-form">
<div class="grid2">
${input('address_line_1', 'Address', line1 || null, ' autocomplete="address-line1"')}
${input('address_line_2', 'Address line 2 (optional)', rest.join(' ') || null, ' autocomplete="address-line2"')}
${input('city', 'City', c.city, ' autocomplete="address-level2"')}
${input('region', 'State / region', c.region, ' autocomplete="address-level1"')}
${input('zip', 'Postal code', c.zip, ' autocomplete="postal-code"')}
${input('country', 'Country code (e.g. DE)', c.country, ' autocomplete="country" maxlength="2" required')}
</div>
${input('tax_number', 'VAT or tax number (optional)', c.taxNumber)}
<button type="submit">Save billing details</button>
</form>
</section>`;
}

/** The customer portal: every value escaped, no scripts. */
export function renderCustomerPortal(
  portal: CustomerPortal,
  n: PortalNotice | null = null,
): string {
  const { customer, storeName, lists } = portal;
  const title = `${storeName || 'Store'}: your purchases`;
  const body = [
    `<div class="intro"><h1>Your purchases</h1>
<p class="sub">${escapeHtml(customer.name)} &lt;${escapeHtml(customer.email)}&gt;${customer.testMode ? ' (test mode)' : ''}</p></div>`,
    notice(n),
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
    billingSection(portal),
  ]
    .filter(Boolean)
    .join('\n');
  return htmlPage(title, body, { storeName });
}
