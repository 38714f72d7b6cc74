/**
 * Spec 4.7 rules 2 and 3: `disable_prorations` wins over `invoice_immediately`;
 * with neither, the proration waits for the next renewal invoice. (The
 * amounts are the money module's `prorate`, by seconds remaining.)
 */
export type ProrationMode = 'none' | 'invoice_now' | 'next_renewal';

export function prorationMode(flags: {
  invoiceImmediately?: boolean;
  disableProrations?: boolean;
}): ProrationMode {
  if (flags.disableProrations) return 'none';
  if (flags.invoiceImmediately) return 'invoice_now';
  return 'next_renewal';
}
