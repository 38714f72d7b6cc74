import { prorationMode } from './proration';

describe('prorationMode (spec 4.7 rules 2 and 3)', () => {
  it.each([
    [{}, 'next_renewal'],
    [{ invoiceImmediately: true }, 'invoice_now'],
    [{ disableProrations: true }, 'none'],
    [{ invoiceImmediately: true, disableProrations: true }, 'none'],
    [{ invoiceImmediately: false, disableProrations: false }, 'next_renewal'],
  ])('%p → %s', (flags, mode) => {
    expect(prorationMode(flags)).toBe(mode);
  });
});
