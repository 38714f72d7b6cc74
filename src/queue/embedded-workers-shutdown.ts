import { WorkerHost } from '@nestjs/bullmq';
import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';

/**
 * On the embedded database every worker closes at once, not waiting for its
 * jobs in flight. BullMQ's PostgreSQL backend has no NOTIFY through PGlite:
 * a worker whose queue holds only a delayed job (a sweep's next run, a
 * webhook's next retry) sleeps until that job is due, and a graceful close
 * waits that sleep out: up to a minute for the sweeps, past any shutdown
 * timeout. Every job is idempotent and stays in its queue, so the next start
 * runs what this one cut off. With Redis (and PostgreSQL servers) workers
 * keep the graceful close that @nestjs/bullmq makes at shutdown.
 */
@Injectable()
export class EmbeddedWorkersShutdown implements OnModuleDestroy {
  constructor(
    private readonly discovery: DiscoveryService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onModuleDestroy() {
    if (this.config.database.url !== null) return;
    const hosts = this.discovery
      .getProviders()
      .map((wrapper) => wrapper.instance as unknown)
      .filter((instance): instance is WorkerHost => {
        if (!(instance instanceof WorkerHost)) return false;
        try {
          return Boolean(instance.worker);
        } catch {
          return false; // never started
        }
      });
    await Promise.all(hosts.map((host) => host.worker.close(true)));
  }
}
