/**
 * Everything a command needs beyond its arguments: loaded only once the
 * arguments are valid, so `--help` and a usage error answer at once instead
 * of after loading the whole application.
 */
export { NestFactory } from '@nestjs/core';
export { Client } from 'pg';
export { CoreModule } from '../app/core.module';
export { seedDemo } from '../app/seed-demo';
export { loadConfig } from '../config/app-config';
export { closeDatabase, openDatabase } from '../database/database-connection';
export { runMigrations } from '../database/migrate';
export { ApiKeyService } from '../modules/account/api-key.service';
export { UserService } from '../modules/account/user.service';
export { RenewalService } from '../modules/billing/renewal.service';
export { StoreService } from '../modules/store/store.service';
