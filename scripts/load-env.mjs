// Preloaded by the npm scripts that run Zest (`node --import=./scripts/load-env.mjs …`):
// reads ./.env when there is one. Node's own --env-file-if-exists does the
// same but prints ".env not found" on every run without the file.
// process.loadEnvFile never overwrites a variable already in the
// environment, so the real environment wins over .env.
import { existsSync } from 'node:fs';
import { enableCompileCache } from 'node:module';

if (existsSync('.env')) process.loadEnvFile('.env');

// Preloaded before the entrypoint's modules load, so V8's code cache (as
// scripts/start.mjs keeps it) serves `npm run cli`, `start:api` and
// `start:worker` too: later runs skip most module compiling.
enableCompileCache();
