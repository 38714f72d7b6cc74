import addressparser from 'nodemailer/lib/addressparser/index.js';

// Loose on purpose (RFC 5322 allows far more); what SMTP refuses is recorded per message.
const ADDRESS = /^[^\s@<>",;]+@[^\s@<>",;]+\.[^\s@<>",;]+$/;

export interface Mailbox {
  name: string;
  address: string;
}

/**
 * One mailbox as a From or Reply-To header takes it: `shop@example.com` or
 * `Example Shop <shop@example.com>`. Null for anything else (several
 * addresses, a group, no address, line breaks).
 */
export function parseMailbox(value: string): Mailbox | null {
  if (/[\r\n]/.test(value) || value.length > 320) return null;
  const parsed = addressparser(value.trim());
  if (parsed.length !== 1 || 'group' in parsed[0]) return null;
  const [mailbox] = parsed;
  if (!ADDRESS.test(mailbox.address) || mailbox.address.length > 254)
    return null;
  return { name: mailbox.name, address: mailbox.address };
}
