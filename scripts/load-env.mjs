// Preloaded by the npm scripts that run Zest (`node --import=./scripts/load-env.mjs …`):
// reads ./.env when there is one. Node's own --env-file-if-exists does the
// same but prints ".env not found" on every run without the file.
// process.loadEnvFile never overwrites a variable already in the
// environment, so the real environment wins over .env.
import { existsSync } from 'node:fs';

if (existsSync('.env')) process.loadEnvFile('.env');
