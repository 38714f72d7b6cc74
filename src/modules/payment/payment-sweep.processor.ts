import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Queue } from 'bullmq';
import { PaymentAttempts } from './payment-attempts';
import {
  PAYMENT_SWEEP_EVERY_MS,
  PAYMENT_SWEEP_QUEUE,
  PAYMENT_SWEEP_SCHEDULER,
} from './payment-sweep.queue';

/**
 * Every minute, settles the payment attempts a crash (or an unreachable
 * processor) left pending between the processor call and its outcome.
 */
@Processor(PAYMENT_SWEEP_QUEUE)
export class PaymentSweepProcessor
  extends WorkerHost
  implements OnApplicationBootstrap
{
  private readonly logger = new Logger(PaymentSweepProcessor.name);

  constructor(
    private readonly attempts: PaymentAttempts,
    @InjectQueue(PAYMENT_SWEEP_QUEUE) private readonly queue: Queue,
  ) {
    super();
  }

  async onApplicationBootstrap() {
    await this.queue.upsertJobScheduler(
      PAYMENT_SWEEP_SCHEDULER,
      { every: PAYMENT_SWEEP_EVERY_MS },
      {
        name: 'sweep',
        opts: { removeOnComplete: 100, removeOnFail: 100 },
      },
    );
  }

  async process(): Promise<{ settled: number }> {
    const settled = await this.attempts.sweep();
    if (settled > 0)
      this.logger.log(`Settled ${settled} stale payment attempts`);
    return { settled };
  }
}
