import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { INestApplicationContext, Logger } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { seedDemo } from './seed-demo';

/**
 * Embedded quickstart only: seed the demo on first start and print how to
 * call the API. The demo key is a local test-mode key, kept under DATA_DIR
 * (mode 0600) so it can be shown again on every start.
 */
export async function seedDemoOnFirstStart(
  app: INestApplicationContext,
  config: AppConfig,
) {
  const keyFile = join(config.database.dataDir, 'demo-api-key');
  const seed = await seedDemo(app);
  if (seed.api_key) writeFileSync(keyFile, seed.api_key, { mode: 0o600 });
  const key = existsSync(keyFile)
    ? readFileSync(keyFile, 'utf8').trim()
    : '(created earlier; see the CLI to make a new one)';
  new Logger('Quickstart').log(
    [
      '',
      `Zest is running at ${config.http.publicBaseUrl}`,
      `Demo store id: ${seed.store_id}`,
      `Demo test-mode API key: ${key}`,
      `Try: curl -H "Authorization: Bearer ${key}" -H "Accept: application/vnd.api+json" ${config.http.publicBaseUrl}/v1/stores`,
      '',
    ].join('\n'),
  );
}
