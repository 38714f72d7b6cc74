/**
 * Proration of a mid-period change (quantity, plan or billing anchor), by
 * seconds: the unused part of the current period is credited at the old
 * amount and the rest of it is charged at the new amount.
 */
export interface ProrationInput {
  periodStart: Date;
  periodEnd: Date;
  now: Date;
  /** Amount of one full period before the change, in cents. */
  oldAmount: number;
  /** Amount of one full period after the change, in cents. */
  newAmount: number;
}

export interface Proration {
  secondsRemaining: number;
  secondsInPeriod: number;
  /** Unused part of the old amount, in cents (≥ 0). */
  credit: number;
  /** Remaining part of the new amount, in cents (≥ 0). */
  charge: number;
  /** charge − credit: positive is owed by the customer, negative is a credit. */
  net: number;
}

const seconds = (ms: number) => Math.floor(ms / 1000);

/** Each part is rounded half up to whole cents on its own, so credit and charge are what an invoice line shows. */
export function prorate(input: ProrationInput): Proration {
  const secondsInPeriod = seconds(
    input.periodEnd.getTime() - input.periodStart.getTime(),
  );
  if (secondsInPeriod <= 0) {
    return {
      secondsRemaining: 0,
      secondsInPeriod: 0,
      credit: 0,
      charge: 0,
      net: 0,
    };
  }
  const secondsRemaining = Math.min(
    secondsInPeriod,
    Math.max(0, seconds(input.periodEnd.getTime() - input.now.getTime())),
  );
  const part = (amount: number) =>
    Math.round((amount * secondsRemaining) / secondsInPeriod);
  const credit = part(input.oldAmount);
  const charge = part(input.newAmount);
  return {
    secondsRemaining,
    secondsInPeriod,
    credit,
    charge,
    net: charge - credit,
  };
}

/**
 * Spec 4.7 rules 2 and 3: `disable_prorations` wins over `invoice_immediately`;
 * with neither, the proration waits for the next renewal invoice.
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
