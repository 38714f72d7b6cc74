import { Command } from '../command';
import { application, timestamp, filterBy, ownerOf } from './shared';

/** Merchant webhooks. */
export const WEBHOOKS_COMMANDS: Record<string, Command> = {
  'webhooks:list': {
    description:
      'List webhooks: store, URL, events, mode and last delivery (never the secret).',
    options: {
      store: {
        type: 'string',
        value: '<id>',
        integer: true,
        description: "Only this store's webhooks.",
      },
    },
    example: 'webhooks:list --store 1',
    table: 'webhooks',
    async run(values, { query }) {
      const { where, parameters } = filterBy(values, 'store', 'store_id');
      const rows = await query<{
        id: number;
        store_id: number;
        url: string;
        events: string[];
        test_mode: boolean;
        last_sent_at: Date | null;
        created_at: Date;
      }>(
        `SELECT id, store_id, url, events, test_mode, last_sent_at, created_at
           FROM webhooks ${where} ORDER BY id`,
        parameters,
      );
      return {
        webhooks: rows.map((row) => ({
          ...row,
          last_sent_at: timestamp(row.last_sent_at),
          created_at: timestamp(row.created_at),
        })),
      };
    },
  },
  'webhooks:test': {
    description:
      'Send one signed "ping" to a webhook, as a delivery is sent, and print what the receiver answered.',
    arguments: [
      {
        name: 'id',
        required: true,
        integer: true,
        description: 'The webhook id (see webhooks:list).',
      },
    ],
    options: {},
    example: 'webhooks:test 1',
    async run(values, { app, query, progress }) {
      const { WebhookDeliveryService } = await application();
      const id = Number(values.id);
      const principal = await ownerOf(
        query,
        'webhook',
        `SELECT s.user_id, w.test_mode FROM webhooks w
           JOIN stores s ON s.id = w.store_id WHERE w.id = $1`,
        id,
      );
      const context = await app();
      progress('Sending the ping…');
      const result = await context
        .get(WebhookDeliveryService)
        .sendTest(principal, id);
      if (result.error !== null && result.responseCode === null)
        throw new Error(`No answer from the receiver: ${result.error}`);
      return {
        webhook_id: id,
        event_name: 'ping',
        response_code: result.responseCode,
        succeeded: result.error === null,
        duration_ms: result.durationMs,
        error: result.error,
      };
    },
  },
};
