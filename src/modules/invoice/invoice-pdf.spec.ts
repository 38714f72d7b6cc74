import { existsSync } from 'node:fs';
import { billToLines, renderInvoicePdf } from './invoice-pdf';
import { formatMoney, toWinAnsi } from './invoice-text';
import { InvoiceView } from './invoice-view';

const DEJAVU = '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf';
// Node's TextDecoder treats windows-1252 as Latin-1, so 0x80-0x9f are mapped here.
const WIN_1252_HIGH =
  '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ';
const decodeWinAnsi = (bytes: Buffer) =>
  [...bytes]
    .map((byte) =>
      byte >= 0x80 && byte <= 0x9f
        ? WIN_1252_HIGH[byte - 0x80]
        : String.fromCharCode(byte),
    )
    .join('');

/**
 * The text of an uncompressed PDF drawn with the standard fonts: pdfkit
 * writes each line as one TJ array of hex strings in WinAnsi.
 */
function pdfText(pdf: Buffer): string {
  const content = pdf.toString('latin1');
  const lines: string[] = [];
  for (const match of content.matchAll(
    /\[((?:<[0-9a-f]*>\s*-?[\d.]*\s*)+)\]\s*TJ/g,
  )) {
    const hex = [...match[1].matchAll(/<([0-9a-f]*)>/g)]
      .map((m) => m[1])
      .join('');
    lines.push(decodeWinAnsi(Buffer.from(hex, 'hex')));
  }
  return lines.join('\n');
}

function view(overrides: Partial<InvoiceView> = {}): InvoiceView {
  return {
    storeId: 1,
    number: '1042',
    issuedAt: new Date('2026-11-20T10:00:00Z'),
    currency: 'USD',
    status: 'paid',
    statusLabel: 'Paid',
    testMode: false,
    store: { name: 'Zeta Goods', lines: ['zeta.example.com', 'United States'] },
    customer: { name: 'Ada Lovelace', email: 'ada@example.com', country: null },
    lines: [
      {
        description: 'Pro Plan - Yearly',
        quantity: 3,
        unitPrice: 4999,
        total: 14997,
      },
    ],
    subtotal: 14997,
    discountTotal: 1500,
    tax: 2699,
    total: 16196,
    taxName: 'VAT',
    taxRate: '20.00',
    taxInclusive: false,
    refundedAmount: 0,
    refundedAt: null,
    fields: {},
    ...overrides,
  };
}

describe('renderInvoicePdf', () => {
  it('writes the store, number, date, bill-to, items, totals and notes as text', async () => {
    const pdf = await renderInvoicePdf(
      view({
        fields: {
          name: 'Grace Hopper',
          address: '1 Navy Way\nBuilding 7',
          city: 'Arlington',
          state: 'VA',
          zip_code: '22202',
          country: 'US',
          notes: 'PO number 4711',
        },
      }),
      { compress: false },
    );
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    const text = pdfText(pdf);
    for (const expected of [
      'Zeta Goods',
      'zeta.example.com',
      'Invoice #1042',
      'Date: November 20, 2026',
      'Status: Paid',
      'Grace Hopper',
      '1 Navy Way',
      'Building 7',
      'Arlington, VA 22202',
      'United States',
      'ada@example.com',
      'Pro Plan - Yearly',
      '3',
      '$49.99',
      '$149.97',
      'Subtotal',
      '-$15.00',
      'VAT (20.00%)',
      '$26.99',
      'Total (USD)',
      '$161.96',
      'Amount paid',
      'PO number 4711',
    ]) {
      expect(text.split('\n')).toContain(expected);
    }
    expect(text).not.toContain('Ada Lovelace');
    expect(text).not.toContain('Test mode');
  });

  it('prints the invoice number with the record as its reference, the seller block and the buyer’s VAT number', async () => {
    const text = pdfText(
      await renderInvoicePdf(
        view({
          invoiceNumber: '2026-000042',
          reference: 'Order',
          store: {
            name: 'Boutique Numérique SAS',
            lines: [
              '5 rue de Rivoli',
              '75001 Paris',
              'France',
              'VAT number: FR40303265045',
            ],
          },
          customer: {
            name: 'Einkauf GmbH',
            email: 'einkauf@example.de',
            country: 'DE',
            postcode: '80331',
            taxNumber: 'DE136695976',
          },
          fields: {},
        }),
        { compress: false },
      ),
    ).split('\n');
    for (const expected of [
      'Invoice no. 2026-000042',
      'Order #1042',
      'Boutique Numérique SAS',
      '75001 Paris',
      'VAT number: FR40303265045',
      'Einkauf GmbH',
      '80331',
      'Germany',
      'VAT number: DE136695976',
      'Net amount',
    ])
      expect(text).toContain(expected);
    expect(text).not.toContain('Invoice #1042');
  });

  it('formats the bill-to address for the buyer’s country', () => {
    const lines = billToLines(
      view({
        fields: {
          address: 'Unter den Linden 77',
          city: 'Berlin',
          zip_code: '10117',
          country: 'DE',
        },
      }),
    );
    expect(lines).toEqual([
      'Ada Lovelace',
      'Unter den Linden 77',
      '10117 Berlin',
      'Germany',
      'ada@example.com',
    ]);
  });

  it('prints the reverse-charge note of a B2B sale under the totals', async () => {
    const note =
      'Reverse charge: VAT to be accounted for by the recipient (Article 196, Council Directive 2006/112/EC). Customer VAT number: DE136695976.';
    const text = pdfText(
      await renderInvoicePdf(
        view({
          tax: 0,
          taxName: null,
          taxRate: null,
          total: 13497,
          taxNote: note,
        }),
        { compress: false },
      ),
    );
    // Wrapped over lines by width: the words are all there, in order.
    expect(text.replace(/\s+/g, ' ')).toContain(note);
    expect(text).not.toContain('VAT (');
    expect(
      pdfText(await renderInvoicePdf(view(), { compress: false })),
    ).not.toContain('Reverse charge');
  });

  it('falls back to the customer name and marks test mode and refunds', async () => {
    const text = pdfText(
      await renderInvoicePdf(
        view({
          testMode: true,
          status: 'refunded',
          statusLabel: 'Refunded',
          refundedAmount: 16196,
          refundedAt: new Date('2026-11-25T08:00:00Z'),
          taxInclusive: true,
        }),
        { compress: false },
      ),
    ).split('\n');
    expect(text).toContain('Ada Lovelace');
    expect(text).toContain('Status: Refunded');
    expect(text).toContain('Test mode: no real payment');
    expect(text).toContain('Refunded on November 25, 2026');
    expect(text).toContain('-$161.96');
    expect(text).toContain('VAT (20.00%), included');
  });

  it('omits the discount and tax rows when there are none, and shows an amount due while pending', async () => {
    const text = pdfText(
      await renderInvoicePdf(
        view({
          status: 'pending',
          statusLabel: 'Pending',
          discountTotal: 0,
          tax: 0,
          taxName: null,
          taxRate: null,
          total: 14997,
        }),
        { compress: false },
      ),
    );
    expect(text).not.toContain('Discount');
    expect(text).not.toContain('VAT');
    expect(text).toContain('Amount due');
  });

  it('shows a service period when the record has one, and no unit price where a line has none', async () => {
    const text = pdfText(
      await renderInvoicePdf(
        view({
          period: {
            start: new Date('2027-01-10T12:00:00Z'),
            end: new Date('2027-02-10T12:00:00Z'),
          },
          lines: [
            {
              description: 'API calls - usage (graduated pricing)',
              quantity: 1200,
              unitPrice: null,
              total: 14997,
            },
          ],
        }),
        { compress: false },
      ),
    );
    expect(text).toContain('Period: Jan 10 – Feb 10, 2027');
    const rows = text.split('\n');
    const quantity = rows.indexOf('1200');
    expect(quantity).toBeGreaterThan(-1);
    // Quantity, then straight to the amount: no unit price cell in between.
    expect(rows[quantity + 1]).toBe('$149.97');
    expect(
      pdfText(await renderInvoicePdf(view(), { compress: false })),
    ).not.toContain('Period:');
  });

  it('formats amounts in the record currency and the requested locale', async () => {
    const eur = pdfText(
      await renderInvoicePdf(
        view({ currency: 'EUR', fields: { locale: 'de-DE' } }),
        { compress: false },
      ),
    );
    expect(eur).toContain('161,96\u00a0€');
    expect(eur).toContain('Date: 20. November 2026');
    const yen = pdfText(
      await renderInvoicePdf(
        view({
          currency: 'JPY',
          lines: [
            { description: 'x', quantity: 1, unitPrice: 1500, total: 1500 },
          ],
        }),
        { compress: false },
      ),
    );
    expect(yen).toContain('¥1,500');
  });

  it('does not crash on scripts the standard fonts lack, and transliterates what it can', async () => {
    const text = pdfText(
      await renderInvoicePdf(
        view({
          currency: 'INR',
          store: { name: 'Łódź Środa Ștefan', lines: [] },
          customer: {
            name: '李雷 Иван',
            email: 'li@example.com',
            country: null,
          },
          lines: [
            {
              description: 'Emoji 🎉 plan',
              quantity: 1,
              unitPrice: 100,
              total: 100,
            },
          ],
        }),
        { compress: false },
      ),
    );
    expect(text).toContain('Lódz Sroda Stefan');
    expect(text).toContain('?? ????');
    expect(text).toContain('Emoji ? plan');
    // ₹ is not in WinAnsi: the ISO code stands in for it.
    expect(text).toContain('INR\u00a0161.96');
  });

  it('embeds a Unicode font when configured', async () => {
    expect(existsSync(DEJAVU)).toBe(true);
    const pdf = await renderInvoicePdf(
      view({
        customer: {
          name: 'Иван Петров',
          email: 'ivan@example.com',
          country: 'DE',
        },
      }),
      { fonts: { regular: DEJAVU, bold: null }, compress: false },
    );
    const raw = pdf.toString('latin1');
    expect(raw).toContain('/FontFile2');
    expect(raw).toContain('DejaVuSans');
    expect(raw).not.toContain('/Helvetica');
  });

  it('renders the same bytes for the same view', async () => {
    const a = await renderInvoicePdf(view());
    const b = await renderInvoicePdf(view());
    expect(a.equals(b)).toBe(true);
  });

  it('breaks long item lists over several pages', async () => {
    const lines = Array.from({ length: 80 }, (_, i) => ({
      description: `Item ${i + 1}`,
      quantity: 1,
      unitPrice: 100,
      total: 100,
    }));
    const pdf = await renderInvoicePdf(view({ lines }), { compress: false });
    const pages = pdf.toString('latin1').match(/\/Type \/Page\b/g) ?? [];
    expect(pages.length).toBeGreaterThan(1);
    const text = pdfText(pdf).split('\n');
    expect(text).toContain('Item 80');
    expect(text.filter((line) => line === 'Description').length).toBe(
      pages.length,
    );
  });
});

describe('invoice text helpers', () => {
  it('keeps WinAnsi text and replaces the rest', () => {
    expect(toWinAnsi('Crème brûlée – 5 €')).toBe('Crème brûlée – 5 €');
    expect(toWinAnsi('Ærøskøbing Ōsaka')).toBe('Ærøskøbing Osaka');
    expect(toWinAnsi('日本')).toBe('??');
  });

  it('formats minor units by the currency’s digits', () => {
    expect(formatMoney(123456, 'USD', 'en-US', true)).toBe('$1,234.56');
    expect(formatMoney(1234, 'JPY', 'en-US', true)).toBe('¥1,234');
    expect(formatMoney(1234, 'KWD', 'en-US', true)).toBe('KWD\u00a01.234');
    expect(formatMoney(100, 'INR', 'en-US', false)).toBe('₹1.00');
  });
});
