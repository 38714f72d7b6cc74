import { Logger as NestLogger } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import {
  closeDatabase,
  DatabaseConnection,
} from '../database/database-connection';

/**
 * SIGTERM/SIGINT: stop taking requests and let in-flight ones finish, let
 * workers finish their current job, close the database, exit. A shutdown
 * that outlasts SHUTDOWN_TIMEOUT_MS exits non-zero; unfinished jobs are then
 * picked up again by BullMQ's stalled-job check.
 */
export function closeOnSignals(
  close: () => Promise<void>,
  database: DatabaseConnection,
  config: AppConfig,
) {
  const logger = new NestLogger('Shutdown');
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    logger.log(`${signal} received, shutting down`);
    const timer = setTimeout(() => {
      logger.error(
        `Shutdown took longer than ${config.shutdownTimeoutMs} ms, exiting`,
      );
      process.exit(1);
    }, config.shutdownTimeoutMs);
    timer.unref();
    close()
      .then(() => closeDatabase(database))
      .then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error({ err: error }, 'Shutdown failed');
          process.exit(1);
        },
      );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}
