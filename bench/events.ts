import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { CoreModule } from '../src/app/core.module';
import { Principal } from '../src/common/principal';
import { loadConfig } from '../src/config/app-config';
import { openDatabase } from '../src/database/database-connection';
import { Transactions } from '../src/database/transactions';
import { OrderReader } from '../src/modules/order/order.reader';
import { Outbox } from '../src/modules/webhooks/outbox';
import { WebhookService } from '../src/modules/webhooks/webhook.service';
import type { BenchState } from './state';
import { readFileSync } from 'node:fs';

/**
 * Writes `order_created` events into the outbox exactly as the purchase flow
 * does (Outbox.record inside a transaction; the commit nudges the worker's
 * relay), stamped with the write time in custom_data for the receiver.
 * Forked by the orchestrator and driven by messages.
 */

type Message =
  | { type: 'webhook'; url: string }
  | { type: 'remove-webhook'; id: number }
  | { type: 'burst'; count: number; phase: string }
  | { type: 'rate'; perSecond: number; seconds: number; phase: string };

async function main() {
  const state = JSON.parse(
    readFileSync(process.env.BENCH_STATE!, 'utf8'),
  ) as BenchState;
  const config = loadConfig();
  const database = await openDatabase(config);
  const app = await NestFactory.createApplicationContext(
    CoreModule.forRoot({ ...config, logLevel: 'warn' }, database),
    { logger: ['error', 'warn'] },
  );
  const principal: Principal = {
    userId: state.userId,
    apiKeyId: 0,
    testMode: true,
  };
  const order = await app
    .get(OrderReader)
    .findOne(principal, state.orderIds[0]);
  if (!order) throw new Error('no order to announce');
  const outbox = app.get(Outbox);
  const transactions = app.get(Transactions);

  const write = (count: number, phase: string) =>
    transactions.run(async (manager) => {
      for (let i = 0; i < count; i++) {
        await outbox.record(manager, {
          name: 'order_created',
          storeId: state.storeId,
          testMode: true,
          resource: 'orders',
          record: order,
          customData: { bench_at: Date.now(), bench_phase: phase },
        });
      }
    });

  process.on('message', (message: Message) => {
    void (async () => {
      if (message.type === 'webhook') {
        const webhook = await app
          .get(WebhookService)
          .create(principal, String(state.storeId), {
            url: message.url,
            events: ['order_created'],
            secret: 'bench-secret',
          });
        process.send!({ type: 'webhook', id: webhook.id });
      } else if (message.type === 'remove-webhook') {
        // A --reuse run must not find this one still subscribed.
        await app.get(WebhookService).delete(principal, message.id);
        process.send!({ type: 'removed' });
      } else if (message.type === 'burst') {
        const started = Date.now();
        for (let done = 0; done < message.count; done += 100)
          await write(Math.min(100, message.count - done), message.phase);
        process.send!({ type: 'burst', ms: Date.now() - started });
      } else {
        // One event per transaction at a steady rate, catching up if a write lags.
        const started = Date.now();
        const total = message.perSecond * message.seconds;
        let issued = 0;
        const inflight = new Set<Promise<void>>();
        while (issued < total) {
          const due = Math.min(
            total,
            Math.floor(((Date.now() - started) / 1000) * message.perSecond) + 1,
          );
          while (issued < due) {
            issued++;
            const p: Promise<void> = write(1, message.phase).finally(() =>
              inflight.delete(p),
            );
            inflight.add(p);
          }
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
        await Promise.all(inflight);
        process.send!({ type: 'rate', ms: Date.now() - started, count: total });
      }
    })().catch((error: unknown) => {
      process.stderr.write(`${String(error)}\n`);
      process.exit(1);
    });
  });
  process.send!({ type: 'ready' });
}

void main();
