import { WorkerHost } from '@nestjs/bullmq';
import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';

/**
 * On the embedded database every worker closes at once, not waiting for its
 * jobs in flight: the API and every worker share PGlite's one session, and a
 * graceful close was seen waiting past 60 s on a worker still extending an
 * active job's lock (CI's teardown of the stripe-webhooks file). Every job
 * is idempotent and stays in its queue, so the next start runs what this
 * one cut off. With Redis (and PostgreSQL servers) workers keep the
 * graceful close that @nestjs/bullmq makes at shutdown.
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
