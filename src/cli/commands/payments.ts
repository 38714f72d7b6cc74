import { formatTimestamp, parseTimestamp } from '../../common/timestamps';
import { Command, UsageError } from '../command';
import { application, ownerOf, rendered } from './shared';

/** Refunds, renewals and the payment sweeper. */
export const PAYMENTS_COMMANDS: Record<string, Command> = {
  'orders:refund': {
    description:
      'Refund an order, in full or in part (as POST /v1/orders/:id/refund); emits order_refunded.',
    arguments: [
      {
        name: 'id',
        required: true,
        integer: true,
        description: 'The order id.',
      },
    ],
    options: {
      amount: {
        type: 'string',
        value: '<cents>',
        description:
          'The amount to refund in cents of the order currency. Default: all that is left.',
      },
    },
    example: 'orders:refund 42 --amount 500',
    async run(values, { app, query, progress }) {
      const { OrderService, parseWriteDocument, RefundAttributes } =
        await application();
      const id = String(values.id);
      const raw = values.amount;
      const amount =
        raw === undefined
          ? undefined
          : /^-?\d+$/.test(String(raw))
            ? Number(raw)
            : String(raw);
      // The API's body, so the amount gets the API's checks and messages.
      const document = parseWriteDocument(
        {
          data: {
            type: 'orders',
            id,
            attributes: amount === undefined ? {} : { amount },
          },
        },
        { type: 'orders', attributes: RefundAttributes, update: true },
        id,
      );
      const principal = await ownerOf(
        query,
        'order',
        `SELECT s.user_id, o.test_mode FROM orders o
           JOIN stores s ON s.id = o.store_id WHERE o.id = $1`,
        id,
      );
      const context = await app();
      progress('Refunding…');
      const order = await context
        .get(OrderService)
        .refund(principal, Number(id), document.attributes.amount);
      return rendered(context, 'orders', order);
    },
  },
  'billing:renew': {
    description:
      'Run one renewal sweep (renewals, payment retries, unpausing, expiry) as of an instant.',
    options: {
      'as-of': {
        type: 'string',
        value: '<ISO 8601>',
        description: 'The instant to sweep at. Default: now.',
      },
    },
    example: 'billing:renew --as-of 2027-01-01T00:00:00Z',
    async run(values, { app, progress }) {
      const { RenewalService } = await application();
      const raw = values['as-of'];
      const asOf =
        raw === undefined ? new Date() : parseTimestamp(raw as string);
      if (!asOf)
        throw new UsageError(
          '--as-of must be an ISO 8601 date-time with a zone, e.g. 2026-12-01T00:00:00Z',
        );
      const context = await app();
      progress('Sweeping…');
      const { steps } = await context.get(RenewalService).sweep(asOf);
      return { as_of: formatTimestamp(asOf), steps };
    },
  },
  'payments:sweep': {
    description:
      'Settle the payment attempts left pending between the processor call and its outcome (a crash, a processor outage), as the worker does every minute.',
    options: {
      'older-than': {
        type: 'string',
        value: '<seconds>',
        description:
          'Only attempts pending for at least this long (younger ones may still be settling in their request). Default: 60.',
      },
    },
    example: 'payments:sweep --older-than 300',
    async run(values, { app, progress }) {
      const { PaymentAttempts } = await application();
      const raw = values['older-than'];
      const seconds = raw === undefined ? 60 : Number(raw);
      if (!Number.isSafeInteger(seconds) || seconds < 0)
        throw new UsageError('--older-than must be a whole number of seconds');
      const context = await app();
      progress('Settling…');
      const settled = await context.get(PaymentAttempts).sweep(seconds * 1000);
      return { settled };
    },
  },
};
