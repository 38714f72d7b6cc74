/**
 * What every command needs once its arguments are valid: configuration and
 * the database. Loaded only then, so `--help` and a usage error answer at
 * once; the application itself is in `application.ts`, loaded only by the
 * commands that use services.
 */
export { Client } from 'pg';
export { loadConfig } from '../config/app-config';
export { closeDatabase, openDatabase } from '../database/database-connection';
export { runMigrations } from '../database/migrate';
