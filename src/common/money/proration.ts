import { share } from './rounding';

/**
 * Proration of a mid-period change (quantity, plan or billing anchor), by
 * whole seconds: the unused part of the current period is credited at the
 * old amount and the rest of it is charged at the new amount.
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

/** Whole seconds from `from` to `to` (negative when `to` is earlier). */
export function secondsBetween(from: Date, to: Date): number {
  return Math.trunc((to.getTime() - from.getTime()) / 1000);
}

/**
 * An amount for a span of a period: `amount × seconds / secondsInPeriod`,
 * rounded once. A full period is the whole amount; a span longer than the
 * period (a billing date moved later) is more of it, a negative one a credit.
 */
export function forSeconds(
  amount: number,
  seconds: number,
  secondsInPeriod: number,
): number {
  return secondsInPeriod > 0 ? share(amount, seconds, secondsInPeriod) : 0;
}

/** Credit and charge are each rounded on their own, so each is what an invoice line shows. */
export function prorate(input: ProrationInput): Proration {
  const secondsInPeriod = secondsBetween(input.periodStart, input.periodEnd);
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
    Math.max(0, secondsBetween(input.now, input.periodEnd)),
  );
  const credit = forSeconds(input.oldAmount, secondsRemaining, secondsInPeriod);
  const charge = forSeconds(input.newAmount, secondsRemaining, secondsInPeriod);
  return {
    secondsRemaining,
    secondsInPeriod,
    credit,
    charge,
    net: charge - credit,
  };
}
