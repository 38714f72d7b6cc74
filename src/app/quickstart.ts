import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { INestApplicationContext, Logger } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { seedDemo } from './seed-demo';

export interface Quickstart {
  baseUrl: string;
  storeId: number;
  /** Null when the key was made before the key file existed (shown once, never stored). */
  apiKey: string | null;
  docsUrl: string;
  /** The local mailbox: every receipt the demo sends (README "E-mail"). */
  mailboxUrl: string;
  dataDir: string;
}

/**
 * Embedded quickstart only: seed the demo on first start and say how to
 * call the API. The demo key is a local test-mode key, kept under DATA_DIR
 * (mode 0600) so it can be shown again on every start.
 */
export async function seedDemoOnFirstStart(
  app: INestApplicationContext,
  config: AppConfig,
): Promise<Quickstart> {
  const keyFile = join(config.database.dataDir, 'demo-api-key');
  const seed = await seedDemo(app);
  if (seed.api_key) writeFileSync(keyFile, seed.api_key, { mode: 0o600 });
  const quickstart: Quickstart = {
    baseUrl: config.http.publicBaseUrl,
    storeId: seed.store_id,
    apiKey: existsSync(keyFile) ? readFileSync(keyFile, 'utf8').trim() : null,
    docsUrl: `${config.http.publicBaseUrl}/docs`,
    mailboxUrl: `${config.http.publicBaseUrl}/dev/mailbox`,
    dataDir: config.database.dataDir,
  };
  announce(quickstart, config);
  return quickstart;
}

/** The commands a new user can paste as printed (single quotes: no shell expansion). */
export function tryCommands({ baseUrl, apiKey }: Quickstart): string[] {
  const auth = `-H 'Authorization: Bearer ${apiKey ?? '<your key>'}' -H 'Accept: application/vnd.api+json'`;
  return [
    `curl ${auth} ${baseUrl}/v1/stores`,
    `curl ${auth} ${baseUrl}/v1/products`,
    `curl ${baseUrl}/health/ready`,
  ];
}

/** Plain text for a person at a terminal. */
export function quickstartBanner(quickstart: Quickstart): string {
  const rule = '-'.repeat(72);
  return [
    '',
    rule,
    `Zest is running at ${quickstart.baseUrl}`,
    '',
    `  Demo store id:           ${quickstart.storeId}`,
    `  Demo test-mode API key:  ${quickstart.apiKey ?? '(made before it was kept; create one: npm run cli -- api-keys:create --help)'}`,
    `  API reference:           ${quickstart.docsUrl}`,
    `  E-mail sent (mailbox):   ${quickstart.mailboxUrl}`,
    `  Data:                    ${quickstart.dataDir}`,
    '',
    'Try:',
    ...tryCommands(quickstart).map((command) => `  ${command}`),
    '',
    'Operator commands: npm run cli -- --help. Stop with Ctrl+C.',
    rule,
    '',
  ].join('\n');
}

function announce(quickstart: Quickstart, config: AppConfig) {
  const pretty =
    config.logFormat === 'pretty' ||
    (config.logFormat === 'auto' && process.stdout.isTTY === true);
  if (pretty) {
    process.stdout.write(quickstartBanner(quickstart));
    return;
  }
  // One structured log line for log collectors: fields, not a text block.
  new Logger('Quickstart').log({
    msg: 'Demo ready',
    ...quickstart,
    try: tryCommands(quickstart),
  });
}
