import { InvoiceView } from './invoice-view';
import { formatMoney, toWinAnsi } from './invoice-text';
import { formatPostalAddress } from '../../common/postal-address';
import { buyerTaxNumberLine } from '../store/store-legal';

export interface InvoiceFonts {
  /** Paths of TrueType/OpenType fonts; null uses Helvetica (WinAnsi only). */
  regular: string | null;
  bold: string | null;
}

export interface RenderOptions {
  fonts?: InvoiceFonts;
  /** Uncompressed content streams, for tests that read the text back. */
  compress?: boolean;
}

const PAGE = { width: 595.28, height: 841.89, margin: 50 };
const LEFT = PAGE.margin;
const WIDTH = PAGE.width - 2 * PAGE.margin;
const BOTTOM = PAGE.height - PAGE.margin;
const COLUMNS = {
  description: { x: LEFT, width: 245 },
  quantity: { x: LEFT + 255, width: 45 },
  unitPrice: { x: LEFT + 305, width: 90 },
  amount: { x: LEFT + 395, width: 100 },
};
const INK = '#111111';
const MUTED = '#5f6368';
const RULE = '#d0d4d9';

const DEFAULT_LOCALE = 'en-US';

/**
 * The bill-to block: the caller's fields, else what the record knows, with
 * the address in the buyer's country's format ("10117 Berlin") and the
 * buyer's tax number of a B2B sale under it.
 */
export function billToLines(view: InvoiceView): string[] {
  const f = view.fields;
  const c = view.customer;
  const country = (f.country ?? c.country ?? '').trim();
  const code = country.toUpperCase();
  // The caller's address parts, else the billing postcode and region the sale was taxed by.
  const typed = [f.address, f.city, f.state, f.zip_code].some(
    (part) => part !== undefined,
  );
  const address = formatPostalAddress({
    lines: f.address ? f.address.split('\n') : [],
    city: f.city,
    state: typed ? f.state : c.state,
    postcode: typed ? f.zip_code : c.postcode,
    country: /^[A-Za-z]{2}$/.test(country) ? code : country,
  });
  const taxNumber = buyerTaxNumberLine(code, c.taxNumber);
  return [
    f.name ?? c.name,
    ...address,
    ...(taxNumber ? [taxNumber] : []),
    c.email,
  ].filter((line) => line !== '');
}

/**
 * Renders an invoice as a PDF with real (searchable) text. Pure: the view
 * model in, the file out; it reads nothing but the fonts it is given.
 * pdfkit loads on the first render, not at start-up (0.14 s of every API
 * and worker boot, most of which never render an invoice).
 */
export async function renderInvoicePdf(
  view: InvoiceView,
  options: RenderOptions = {},
): Promise<Buffer> {
  const { default: PDFDocument } = await import('pdfkit');
  const unicode = Boolean(options.fonts?.regular);
  const locale = view.fields.locale ?? DEFAULT_LOCALE;
  const text = (value: string) => (unicode ? value : toWinAnsi(value));
  const money = (minor: number) =>
    formatMoney(minor, view.currency, locale, !unicode);
  const date = (value: Date) =>
    new Intl.DateTimeFormat(locale, {
      dateStyle: 'long',
      timeZone: 'UTC',
    }).format(value);
  const dateRange = (start: Date, end: Date) =>
    new Intl.DateTimeFormat(locale, {
      dateStyle: 'medium',
      timeZone: 'UTC',
    }).formatRange(start, end);

  const title = view.invoiceNumber
    ? `Invoice ${view.invoiceNumber}`
    : `Invoice #${view.number}`;
  const doc = new PDFDocument({
    size: 'A4',
    margin: PAGE.margin,
    compress: options.compress ?? true,
    bufferPages: false,
    info: {
      Title: title,
      Author: view.store.name,
      Subject: `${title} from ${view.store.name}`,
      // The invoice date, not "now": the same invoice renders the same file.
      CreationDate: view.issuedAt,
      ModDate: view.issuedAt,
    },
  });
  const chunks: Buffer[] = [];
  const finished = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  const regular = unicode ? 'invoice-regular' : 'Helvetica';
  const bold = unicode ? 'invoice-bold' : 'Helvetica-Bold';
  if (unicode) {
    doc.registerFont(regular, options.fonts!.regular!);
    doc.registerFont(bold, options.fonts!.bold ?? options.fonts!.regular!);
  }

  type Style = { font?: string; size?: number; color?: string };
  const style = ({ font = regular, size = 10, color = INK }: Style) =>
    doc.font(font).fontSize(size).fillColor(color);
  /** Draws a block of text at (x, y) and returns the y below it. */
  const put = (
    value: string,
    x: number,
    y: number,
    width: number,
    s: Style & { align?: 'left' | 'right' } = {},
  ) => {
    style(s);
    const content = text(value);
    doc.text(content, x, y, { width, align: s.align ?? 'left' });
    return y + doc.heightOfString(content, { width });
  };
  let y = PAGE.margin;
  const ensureSpace = (height: number) => {
    if (y + height > BOTTOM) {
      doc.addPage();
      y = PAGE.margin;
    }
  };

  // Header: the store on the left, the invoice's identity on the right.
  let leftY = put(view.store.name, LEFT, y, 290, { font: bold, size: 18 });
  for (const line of view.store.lines) {
    leftY = put(line, LEFT, leftY + 2, 290, { size: 9, color: MUTED });
  }
  let rightY = put('Invoice', LEFT + 295, y, 200, {
    font: bold,
    size: 22,
    align: 'right',
  });
  const identity = [
    ...(view.invoiceNumber
      ? [
          `Invoice no. ${view.invoiceNumber}`,
          `${view.reference ?? 'Reference'} #${view.number}`,
        ]
      : [`Invoice #${view.number}`]),
    `Date: ${date(view.issuedAt)}`,
    ...(view.period
      ? [`Period: ${dateRange(view.period.start, view.period.end)}`]
      : []),
    `Status: ${view.statusLabel}`,
  ];
  for (const line of identity) {
    rightY = put(line, LEFT + 295, rightY + 3, 200, { align: 'right' });
  }
  if (view.testMode) {
    rightY = put('Test mode: no real payment', LEFT + 295, rightY + 3, 200, {
      font: bold,
      color: '#b45309',
      align: 'right',
    });
  }
  y = Math.max(leftY, rightY) + 28;

  const f = view.fields;
  const billTo = billToLines(view);
  y = put('Bill to', LEFT, y, WIDTH, { font: bold, size: 9, color: MUTED });
  for (const line of billTo) y = put(line, LEFT, y + 2, 300);
  y += 24;

  // Line items.
  const header = (top: number) => {
    doc.rect(LEFT, top - 5, WIDTH, 20).fill('#f1f3f5');
    const cell = { font: bold, size: 9, color: MUTED } as const;
    put(
      'Description',
      COLUMNS.description.x + 4,
      top,
      COLUMNS.description.width,
      cell,
    );
    put('Qty', COLUMNS.quantity.x, top, COLUMNS.quantity.width, {
      ...cell,
      align: 'right',
    });
    put('Unit price', COLUMNS.unitPrice.x, top, COLUMNS.unitPrice.width, {
      ...cell,
      align: 'right',
    });
    put('Amount', COLUMNS.amount.x, top, COLUMNS.amount.width - 4, {
      ...cell,
      align: 'right',
    });
    return top + 22;
  };
  y = header(y);
  for (const item of view.lines) {
    style({});
    const description = text(item.description);
    const height = Math.max(
      doc.heightOfString(description, { width: COLUMNS.description.width }),
      12,
    );
    if (y + height + 10 > BOTTOM) {
      doc.addPage();
      y = header(PAGE.margin);
    }
    put(
      item.description,
      COLUMNS.description.x + 4,
      y,
      COLUMNS.description.width,
    );
    put(String(item.quantity), COLUMNS.quantity.x, y, COLUMNS.quantity.width, {
      align: 'right',
    });
    put(
      item.unitPrice === null ? '' : money(item.unitPrice),
      COLUMNS.unitPrice.x,
      y,
      COLUMNS.unitPrice.width,
      { align: 'right' },
    );
    put(money(item.total), COLUMNS.amount.x, y, COLUMNS.amount.width - 4, {
      align: 'right',
    });
    y += height + 8;
    doc
      .moveTo(LEFT, y - 4)
      .lineTo(LEFT + WIDTH, y - 4)
      .lineWidth(0.5)
      .stroke(RULE);
  }
  y += 8;

  // Totals, right-aligned under the amounts.
  const rows: { label: string; value: string; strong?: boolean }[] = [
    { label: 'Subtotal', value: money(view.subtotal) },
  ];
  if (view.discountTotal > 0) {
    rows.push({ label: 'Discount', value: `-${money(view.discountTotal)}` });
  }
  if (view.taxName !== null || view.tax > 0) {
    // The taxable amount at the rate, as EU invoices must show it.
    rows.push({ label: 'Net amount', value: money(view.total - view.tax) });
    const rate = view.taxRate !== null ? ` (${view.taxRate}%)` : '';
    const inclusive = view.taxInclusive ? ', included' : '';
    rows.push({
      label: `${view.taxName ?? 'Tax'}${rate}${inclusive}`,
      value: money(view.tax),
    });
  }
  rows.push({
    label: `Total (${view.currency})`,
    value: money(view.total),
    strong: true,
  });
  if (view.status === 'paid' || view.refundedAmount > 0) {
    rows.push({ label: 'Amount paid', value: money(view.total) });
  } else if (view.status === 'pending') {
    rows.push({ label: 'Amount due', value: money(view.total) });
  }
  if (view.refundedAmount > 0) {
    const when = view.refundedAt ? ` on ${date(view.refundedAt)}` : '';
    rows.push({
      label: `Refunded${when}`,
      value: `-${money(view.refundedAmount)}`,
    });
  }
  ensureSpace(rows.length * 18 + 10);
  for (const row of rows) {
    const s: Style = row.strong ? { font: bold, size: 12 } : {};
    const labelBottom = put(row.label, LEFT + 150, y, 240, {
      ...s,
      align: 'right',
    });
    const valueBottom = put(
      row.value,
      COLUMNS.amount.x,
      y,
      COLUMNS.amount.width - 4,
      {
        ...s,
        align: 'right',
      },
    );
    y = Math.max(labelBottom, valueBottom) + 6;
  }

  if (view.taxNote) {
    y += 12;
    style({});
    ensureSpace(12 + doc.heightOfString(text(view.taxNote), { width: WIDTH }));
    y = put(view.taxNote, LEFT, y, WIDTH);
  }

  if (f.notes) {
    y += 18;
    style({});
    ensureSpace(30 + doc.heightOfString(text(f.notes), { width: WIDTH }));
    y = put('Notes', LEFT, y, WIDTH, { font: bold, size: 9, color: MUTED });
    put(f.notes, LEFT, y + 2, WIDTH);
  }

  doc.end();
  return finished;
}
