import { ReceiptModel, renderReceipt } from './order-receipt.template';

function model(overrides: Partial<ReceiptModel> = {}): ReceiptModel {
  return {
    store: { name: 'Boutique Numérique', logoUrl: null },
    testMode: false,
    orderNumber: 7,
    date: new Date('2026-11-20T10:00:00Z'),
    buyerName: 'Einkauf GmbH',
    currency: 'EUR',
    items: [{ name: 'Font Licence', quantity: 1, total: 1000 }],
    subtotal: 1000,
    discountTotal: 0,
    setupFee: 0,
    tax: 0,
    taxName: null,
    taxRate: 0,
    taxInclusive: false,
    taxNote: null,
    total: 1000,
    seller: { name: 'Boutique Numérique', lines: ['France'] },
    invoiceNumber: null,
    buyerTaxNumber: null,
    thankYouNote: null,
    button: { text: 'View your order', url: 'https://shop.example/r/1' },
    licenseKeys: [],
    downloads: [],
    downloadLinkHours: 24,
    invoiceUrl: 'https://shop.example/i/1',
    ...overrides,
  };
}

describe('the order receipt', () => {
  it('shows the reverse-charge note of a B2B sale in both parts', async () => {
    const note =
      'Reverse charge: VAT to be accounted for by the recipient (Article 196, Council Directive 2006/112/EC). Customer VAT number: DE136695976.';
    const mail = await renderReceipt(model({ taxNote: note }));
    expect(mail.text).toContain(note);
    expect(mail.html).toContain('Reverse charge: VAT to be accounted for');
    const consumer = await renderReceipt(
      model({ tax: 190, taxName: 'VAT', taxRate: 19, total: 1190 }),
    );
    expect(consumer.text).toContain('VAT (19%): €1.90');
    expect(consumer.text).not.toContain('Reverse charge');
    expect(consumer.html).not.toContain('Reverse charge');
  });

  it('names the seller, the invoice number and the buyer’s VAT number', async () => {
    const mail = await renderReceipt(
      model({
        seller: {
          name: 'Boutique Numérique SAS',
          lines: [
            '5 rue de Rivoli',
            '75001 Paris',
            'France',
            'VAT number: FR40303265045',
          ],
        },
        invoiceNumber: '2026-000042',
        buyerTaxNumber: 'VAT number: DE136695976',
      }),
    );
    for (const part of [mail.text, mail.html]) {
      expect(part).toContain('Boutique Numérique SAS');
      expect(part).toContain('75001 Paris');
      expect(part).toContain('VAT number: FR40303265045');
      expect(part).toContain('2026-000042');
      expect(part).toContain('VAT number: DE136695976');
    }
    expect(mail.text).toContain(
      'Sold by\nBoutique Numérique SAS\n5 rue de Rivoli\n75001 Paris\nFrance\nVAT number: FR40303265045',
    );
    const consumer = await renderReceipt(model());
    expect(consumer.text).not.toContain('Bought by');
    expect(consumer.text).not.toContain('invoice no.');
  });
});
