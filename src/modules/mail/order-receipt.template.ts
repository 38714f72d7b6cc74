import type mjml2html from 'mjml';
import { formatMoney } from '../../common/money/format';
import { RenderedMail } from './mail-kinds';

export interface ReceiptLicenseKey {
  product: string;
  key: string;
  /** Null: unlimited activations. */
  activationLimit: number | null;
  /** Null: never expires. */
  expiresAt: Date | null;
}

/** Everything the order receipt shows; strings are plain text (escaped here). */
export interface ReceiptModel {
  store: { name: string; logoUrl: string | null };
  testMode: boolean;
  orderNumber: number;
  date: Date;
  buyerName: string;
  currency: string;
  items: { name: string; quantity: number; total: number }[];
  subtotal: number;
  discountTotal: number;
  setupFee: number;
  tax: number;
  taxName: string | null;
  taxRate: number;
  taxInclusive: boolean;
  /** The reverse-charge wording of a B2B sale without tax. */
  taxNote: string | null;
  total: number;
  /** The seller: legal name, then address, VAT/GST number and domain lines. */
  seller: { name: string; lines: string[] };
  /** The store's invoice number, once the order is paid. */
  invoiceNumber: string | null;
  /** The buyer's tax number line of a B2B sale ("VAT number: DE…"). */
  buyerTaxNumber: string | null;
  thankYouNote: string | null;
  button: { text: string; url: string };
  licenseKeys: ReceiptLicenseKey[];
  /** The order's files, each with its signed, expiring link. */
  downloads: ReceiptDownload[];
  /** How long the download links work, in hours. */
  downloadLinkHours: number;
  invoiceUrl: string;
}

export interface ReceiptDownload {
  name: string;
  /** Human-readable (`12.4 MB`). */
  size: string;
  url: string;
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(value: string | number): string {
  return String(value).replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/**
 * The message's values, kept out of the MJML source: the source holds a
 * token per value, so every receipt of the same shape (items, keys, which
 * totals) compiles to the same HTML, compiled once (MJML takes about 10 ms
 * a receipt) and filled in per message. MJML copies text and attribute
 * values through unchanged, tokens included.
 */
export class Slots {
  readonly values: string[] = [];

  /** A token standing for `html` (already escaped). */
  put(html: string): string {
    this.values.push(html);
    return `zqslot${this.values.length - 1}zq`;
  }

  fill(compiled: string): string {
    return compiled.replace(
      /zqslot(\d+)zq/g,
      (_, index: string) => this.values[Number(index)],
    );
  }
}

/** Compiled HTML by tokenized MJML source; bounded (a store has few shapes). */
const compiledShapes = new Map<string, string>();
const MAX_SHAPES = 200;

let mjmlLoaded: Promise<typeof mjml2html> | null = null;

/**
 * MJML (about 54 MiB of heap) loads on the first render, which happens in
 * the worker: the API process only records messages, and its heap is capped
 * at 128 MiB in production.
 */
function loadMjml(): Promise<typeof mjml2html> {
  mjmlLoaded ??= import('mjml').then((module) => module.default);
  return mjmlLoaded;
}

export async function compile(source: string): Promise<string> {
  const cached = compiledShapes.get(source);
  if (cached !== undefined) return cached;
  const mjml = await loadMjml();
  const { html, errors } = await mjml(source, {
    validationLevel: 'strict',
    minify: false,
  });
  if (errors.length > 0)
    throw new Error(
      `Mail template: ${errors.map((e) => e.formattedMessage).join('; ')}`,
    );
  if (compiledShapes.size >= MAX_SHAPES) compiledShapes.clear();
  compiledShapes.set(source, html);
  return html;
}

export const DATE = new Intl.DateTimeFormat('en', {
  dateStyle: 'long',
  timeZone: 'UTC',
});

function taxLabel(model: ReceiptModel): string {
  const name = model.taxName ?? 'Tax';
  const rate = model.taxRate ? ` (${model.taxRate}%)` : '';
  return `${name}${rate}${model.taxInclusive ? ', included' : ''}`;
}

function limitText(limit: number | null): string {
  if (limit === null) return 'Unlimited activations';
  return limit === 1 ? '1 activation' : `${limit} activations`;
}

function expiryText(expiresAt: Date | null): string {
  return expiresAt ? `Expires ${DATE.format(expiresAt)}` : 'Never expires';
}

function downloadNote(model: ReceiptModel): string {
  return `Download links work for ${model.downloadLinkHours} hours; your order page signs fresh ones.`;
}

/** The summary lines below the items, in order, each only when it applies. */
function totalLines(model: ReceiptModel): [string, string, boolean][] {
  const money = (cents: number) => formatMoney(cents, model.currency);
  const lines: [string, string, boolean][] = [
    ['Subtotal', money(model.subtotal), false],
  ];
  if (model.discountTotal > 0)
    lines.push(['Discount', `−${money(model.discountTotal)}`, false]);
  if (model.setupFee > 0)
    lines.push(['Setup fee', money(model.setupFee), false]);
  if (model.tax > 0 || model.taxName !== null)
    lines.push([taxLabel(model), money(model.tax), false]);
  lines.push(['Total', money(model.total), true]);
  return lines;
}

export function receiptSubject(model: ReceiptModel): string {
  const subject = `Your receipt from ${model.store.name} (order #${model.orderNumber})`;
  return model.testMode ? `[Test mode] ${subject}` : subject;
}

/** The order receipt: responsive HTML by MJML, and its plain-text twin. */
export async function renderReceipt(
  model: ReceiptModel,
): Promise<RenderedMail> {
  const slots = new Slots();
  const html = slots.fill(await compile(receiptMjml(model, slots)));
  return { subject: receiptSubject(model), html, text: receiptText(model) };
}

function receiptMjml(model: ReceiptModel, slots: Slots): string {
  const escape = (value: string | number) => slots.put(escapeHtml(value));
  const paragraph = (value: string) =>
    slots.put(escapeHtml(value).replace(/\r?\n/g, '<br>'));
  const money = (cents: number) => formatMoney(cents, model.currency);
  const testBanner = model.testMode
    ? `<mj-section background-color="#fff4e5" padding="10px 24px">
        <mj-column><mj-text align="center" color="#8a4b00" font-weight="600">Test mode: no real payment was taken.</mj-text></mj-column>
      </mj-section>`
    : '';
  const logo = model.store.logoUrl
    ? `<mj-image src="${escape(model.store.logoUrl)}" alt="${escape(model.store.name)}" width="64px" padding="0 0 8px" />`
    : '';
  const items = model.items
    .map(
      (item) => `<tr>
        <td style="padding:6px 0">${escape(item.name)}${item.quantity > 1 ? ` × ${escape(item.quantity)}` : ''}</td>
        <td style="padding:6px 0;text-align:right;white-space:nowrap">${escape(money(item.total))}</td>
      </tr>`,
    )
    .join('');
  const totals = totalLines(model)
    .map(
      ([label, amount, strong]) => `<tr>
        <td style="padding:4px 0;${strong ? 'font-weight:700;border-top:1px solid #e3e6ea;padding-top:10px' : 'color:#59636e'}">${escape(label)}</td>
        <td style="padding:4px 0;text-align:right;white-space:nowrap;${strong ? 'font-weight:700;border-top:1px solid #e3e6ea;padding-top:10px' : ''}">${escape(amount)}</td>
      </tr>`,
    )
    .join('');
  const keys =
    model.licenseKeys.length === 0
      ? ''
      : `<mj-section background-color="#ffffff" padding="0 24px 8px">
        <mj-column>
          <mj-text font-size="16px" font-weight="700" padding="16px 0 4px">${model.licenseKeys.length === 1 ? 'Your license key' : 'Your license keys'}</mj-text>
          ${model.licenseKeys
            .map(
              (
                key,
              ) => `<mj-text padding="8px 0 0" color="#59636e">${escape(key.product)}</mj-text>
          <mj-text padding="2px 0" font-family="ui-monospace, Menlo, Consolas, monospace" font-size="15px" css-class="license-key">${escape(key.key)}</mj-text>
          <mj-text padding="0 0 8px" color="#59636e" font-size="13px">${escape(limitText(key.activationLimit))} · ${escape(expiryText(key.expiresAt))}</mj-text>`,
            )
            .join('')}
        </mj-column>
      </mj-section>`;
  const downloads =
    model.downloads.length === 0
      ? ''
      : `<mj-section background-color="#ffffff" padding="0 24px 8px">
        <mj-column>
          <mj-text font-size="16px" font-weight="700" padding="16px 0 4px">${model.downloads.length === 1 ? 'Your download' : 'Your downloads'}</mj-text>
          ${model.downloads
            .map(
              (file) =>
                `<mj-text padding="4px 0"><a href="${escape(file.url)}" style="color:#5423e7;font-weight:600">${escape(file.name)}</a> <span style="color:#59636e;font-size:13px">${escape(file.size)}</span></mj-text>`,
            )
            .join('')}
          <mj-text padding="4px 0 8px" color="#59636e" font-size="13px">${escape(downloadNote(model))}</mj-text>
        </mj-column>
      </mj-section>`;
  const note = model.thankYouNote
    ? `<mj-text padding="0 0 16px">${paragraph(model.thankYouNote)}</mj-text>`
    : '';
  return `<mjml lang="en">
  <mj-head>
    <mj-title>${escape(receiptSubject(model))}</mj-title>
    <mj-preview>${escape(`Order #${model.orderNumber}: ${money(model.total)}`)}</mj-preview>
    <mj-attributes>
      <mj-all font-family="-apple-system, Segoe UI, Roboto, Helvetica, Arial, sans-serif" />
      <mj-text font-size="15px" line-height="1.5" color="#1f2328" padding="0" />
    </mj-attributes>
    <mj-style>.license-key div { word-break: break-all; }</mj-style>
  </mj-head>
  <mj-body background-color="#f3f4f6" width="600px">
    <mj-section padding="24px 0 8px"><mj-column>
      ${logo}
      <mj-text align="center" font-size="18px" font-weight="700">${escape(model.store.name)}</mj-text>
    </mj-column></mj-section>
    ${testBanner}
    <mj-section background-color="#ffffff" padding="24px 24px 8px">
      <mj-column>
        <mj-text font-size="22px" font-weight="700" padding="0 0 4px">Thanks for your order${model.buyerName ? `, ${escape(model.buyerName)}` : ''}!</mj-text>
        <mj-text color="#59636e" padding="0 0 16px">Order #${escape(model.orderNumber)}${model.invoiceNumber ? ` · Invoice no. ${escape(model.invoiceNumber)}` : ''} · ${escape(DATE.format(model.date))}</mj-text>
        ${note}
        <mj-table padding="0" font-size="15px">${items}</mj-table>
        <mj-divider border-width="1px" border-color="#e3e6ea" padding="8px 0" />
        <mj-table padding="0" font-size="15px">${totals}</mj-table>
        ${model.taxNote ? `<mj-text color="#59636e" font-size="13px" padding="8px 0 0">${paragraph(model.taxNote)}</mj-text>` : ''}
        <mj-text color="#59636e" font-size="13px" padding="16px 0 0" css-class="seller"><strong>Sold by</strong><br>${paragraph([model.seller.name, ...model.seller.lines].join('\n'))}</mj-text>
        ${model.buyerTaxNumber ? `<mj-text color="#59636e" font-size="13px" padding="8px 0 0"><strong>Bought by</strong><br>${paragraph(`${model.buyerName}\n${model.buyerTaxNumber}`)}</mj-text>` : ''}
      </mj-column>
    </mj-section>
    ${keys}
    ${downloads}
    <mj-section background-color="#ffffff" padding="8px 24px 24px">
      <mj-column>
        <mj-button href="${escape(model.button.url)}" background-color="#5423e7" color="#ffffff" font-size="15px" font-weight="600" border-radius="6px" inner-padding="12px 24px" padding="8px 0">${escape(model.button.text)}</mj-button>
        <mj-text align="center" font-size="13px" padding="8px 0 0"><a href="${escape(model.invoiceUrl)}" style="color:#5423e7">Download the invoice (PDF)</a></mj-text>
      </mj-column>
    </mj-section>
    <mj-section padding="16px 24px 32px"><mj-column>
      <mj-text align="center" font-size="12px" color="#59636e">You receive this e-mail because you bought from ${escape(model.store.name)}.</mj-text>
    </mj-column></mj-section>
  </mj-body>
</mjml>`;
}

function receiptText(model: ReceiptModel): string {
  const money = (cents: number) => formatMoney(cents, model.currency);
  const lines: string[] = [];
  if (model.testMode) lines.push('TEST MODE: no real payment was taken.', '');
  lines.push(
    `Thanks for your order${model.buyerName ? `, ${model.buyerName}` : ''}!`,
    `${model.store.name}, order #${model.orderNumber}${model.invoiceNumber ? `, invoice no. ${model.invoiceNumber}` : ''}, ${DATE.format(model.date)}`,
    '',
  );
  if (model.thankYouNote) lines.push(model.thankYouNote, '');
  for (const item of model.items)
    lines.push(
      `${item.name}${item.quantity > 1 ? ` × ${item.quantity}` : ''}: ${money(item.total)}`,
    );
  lines.push('');
  for (const [label, amount] of totalLines(model))
    lines.push(`${label}: ${amount}`);
  if (model.taxNote) lines.push('', model.taxNote);
  lines.push('', 'Sold by', model.seller.name, ...model.seller.lines);
  if (model.buyerTaxNumber)
    lines.push('', 'Bought by', model.buyerName, model.buyerTaxNumber);
  if (model.licenseKeys.length > 0) {
    lines.push(
      '',
      model.licenseKeys.length === 1 ? 'Your license key' : 'Your license keys',
    );
    for (const key of model.licenseKeys)
      lines.push(
        '',
        `${key.product}`,
        key.key,
        `${limitText(key.activationLimit)}, ${expiryText(key.expiresAt).toLowerCase()}`,
      );
  }
  if (model.downloads.length > 0) {
    lines.push(
      '',
      model.downloads.length === 1 ? 'Your download' : 'Your downloads',
    );
    for (const file of model.downloads)
      lines.push('', `${file.name} (${file.size})`, file.url);
    lines.push('', downloadNote(model));
  }
  lines.push(
    '',
    `${model.button.text}: ${model.button.url}`,
    `Invoice (PDF): ${model.invoiceUrl}`,
    '',
    `You receive this e-mail because you bought from ${model.store.name}.`,
  );
  return `${lines.join('\n')}\n`;
}
