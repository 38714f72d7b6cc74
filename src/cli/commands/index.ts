import type { Command } from '../command';
import { DATABASE_COMMANDS } from './database';
import { ACCOUNTS_COMMANDS } from './accounts';
import { STORES_COMMANDS } from './stores';
import { STORE_LEGAL_COMMANDS } from './store-legal';
import { CATALOG_COMMANDS } from './catalog';
import { WEBHOOKS_COMMANDS } from './webhooks';
import { PAYMENTS_COMMANDS } from './payments';
import { MAIL_COMMANDS } from './mail';
import { RATES_COMMANDS } from './rates';
import { TAX_REPORTS_COMMANDS } from './tax-reports';

/**
 * Every operator command. The list commands read with plain SQL rather than
 * through the services: they need no application (queue, workers), so they
 * answer in about the time the database takes to open, and they select named
 * columns only, so a key hash or a webhook secret is never even read.
 */
export const COMMANDS: Record<string, Command> = {
  ...DATABASE_COMMANDS,
  ...ACCOUNTS_COMMANDS,
  ...STORES_COMMANDS,
  ...STORE_LEGAL_COMMANDS,
  ...CATALOG_COMMANDS,
  ...WEBHOOKS_COMMANDS,
  ...PAYMENTS_COMMANDS,
  ...MAIL_COMMANDS,
  ...RATES_COMMANDS,
  ...TAX_REPORTS_COMMANDS,
};
