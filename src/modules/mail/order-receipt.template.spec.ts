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
});
