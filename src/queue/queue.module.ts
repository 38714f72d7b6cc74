import { BullModule } from '@nestjs/bullmq';
import { DynamicModule, Module } from '@nestjs/common';
import {
  createPostgresBackend,
  setDefaultBackendFactory,
  Worker,
  WorkerOptions,
} from 'bullmq';
import { AppConfig } from '../config/app-config';
import { DatabaseConnection } from '../database/database-connection';

/**
 * Workers whose locks last `lockDurationMs` (QUEUE_LOCK_DURATION_MS) unless
 * a processor sets its own: a killed worker's active jobs are freed by the
 * stalled check of a live worker, which runs as often as the locks last.
 */
function workerClass(lockDurationMs: number): typeof Worker {
  return class LockedWorker extends Worker {
    constructor(
      name: string,
      processor: ConstructorParameters<typeof Worker>[1],
      opts: WorkerOptions,
    ) {
      super(name, processor, {
        lockDuration: lockDurationMs,
        stalledInterval: lockDurationMs,
        ...opts,
      });
    }
  } as typeof Worker;
}

/**
 * BullMQ's connection for every queue: Redis when REDIS_URL is set, otherwise
 * BullMQ's PostgreSQL backend on the application database. Modules register
 * their own queues with `BullModule.registerQueue`.
 */
@Module({})
export class QueueModule {
  static forRoot(
    config: AppConfig,
    database: DatabaseConnection,
  ): DynamicModule {
    const prefix = config.queue.prefix;
    // One setting per process, read when the processors' workers are made.
    BullModule.workerClass = workerClass(config.queue.lockDurationMs);
    if (config.queue.redisUrl) {
      const url = new URL(config.queue.redisUrl);
      return {
        module: QueueModule,
        imports: [
          BullModule.forRoot({
            prefix,
            connection: {
              host: url.hostname,
              port: Number(url.port || 6379),
              username: url.username
                ? decodeURIComponent(url.username)
                : undefined,
              password: url.password
                ? decodeURIComponent(url.password)
                : undefined,
              db: url.pathname.length > 1 ? Number(url.pathname.slice(1)) : 0,
              tls: url.protocol === 'rediss:' ? {} : undefined,
              // Workers block on Redis; BullMQ requires unlimited retries for them.
              maxRetriesPerRequest: null,
            },
          }),
        ],
        exports: [BullModule],
      };
    }
    setDefaultBackendFactory(createPostgresBackend);
    return {
      module: QueueModule,
      imports: [
        BullModule.forRoot({
          prefix,
          connection: {
            connectionString: database.url,
            max: 5,
            // BullMQ owns its tables; it migrates them under an advisory lock.
            migrate: true,
            // Through PGlite's socket multiplexer only the public schema works.
            schema: database.embedded ? 'public' : 'bullmq',
          } as never,
        }),
      ],
      exports: [BullModule],
    };
  }
}
