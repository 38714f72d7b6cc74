import { Command, positiveInteger, UsageError } from '../command';
import { timestamp, filterBy } from './shared';

/** The mail outbox. */
export const MAIL_COMMANDS: Record<string, Command> = {
  'mail:list': {
    description:
      'List recorded e-mail, newest first: kind, recipient, subject, status, attempts.',
    options: {
      store: {
        type: 'string',
        value: '<id>',
        integer: true,
        description: "Only this store's messages.",
      },
      limit: {
        type: 'string',
        value: '<n>',
        integer: true,
        description: 'At most this many (default 50).',
      },
    },
    example: 'mail:list --store 1 --limit 20',
    table: 'messages',
    async run(values, { query }) {
      const { where, parameters } = filterBy(values, 'store', 'store_id');
      const limit = positiveInteger(values, 'limit') ?? 50;
      const rows = await query<{
        id: number;
        store_id: number;
        kind: string;
        to_address: string;
        subject: string | null;
        status: string;
        attempts: number;
        test_mode: boolean;
        created_at: Date;
      }>(
        `SELECT id, store_id, kind, to_address, subject, status, attempts,
                test_mode, created_at
           FROM mail_messages ${where}
          ORDER BY id DESC LIMIT $${parameters.length + 1}`,
        [...parameters, limit],
      );
      return {
        messages: rows.map((row) => ({
          id: row.id,
          store_id: row.store_id,
          kind: row.kind,
          to: row.to_address,
          subject: row.subject,
          status: row.status,
          attempts: row.attempts,
          test_mode: row.test_mode,
          created_at: timestamp(row.created_at),
        })),
      };
    },
  },
  'mail:show': {
    description:
      'Show one recorded e-mail: envelope, status, SMTP reply and its text part (or HTML).',
    arguments: [
      {
        name: 'id',
        required: true,
        integer: true,
        description: 'The message id (see mail:list).',
      },
    ],
    options: {
      html: {
        type: 'boolean',
        description: 'Print the HTML part instead of the text part.',
      },
    },
    example: 'mail:show 1',
    async run(values, { query }) {
      const id = Number(values.id);
      const [row] = await query<{
        id: number;
        store_id: number;
        kind: string;
        cause_key: string;
        to_address: string;
        from_address: string | null;
        reply_to: string | null;
        subject: string | null;
        status: string;
        attempts: number;
        smtp_reply: string | null;
        message_id: string | null;
        test_mode: boolean;
        created_at: Date;
        sent_at: Date | null;
        html: string | null;
        text: string | null;
      }>(
        `SELECT id, store_id, kind, cause_key, to_address, from_address,
                reply_to, subject, status, attempts, smtp_reply, message_id,
                test_mode, created_at, sent_at, html, text
           FROM mail_messages WHERE id = $1`,
        [id],
      );
      if (!row) throw new UsageError(`There is no message ${id}`);
      const { html, text, to_address, from_address, ...fields } = row;
      return {
        ...fields,
        from: from_address,
        to: to_address,
        created_at: timestamp(row.created_at),
        sent_at: timestamp(row.sent_at),
        ...(values.html === true ? { html } : { text }),
      };
    },
  },
};
