import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { JobsOptions, Queue } from 'bullmq';
import { throttle } from '../../common/throttle';

export const MAIL_QUEUE = 'mail';
/**
 * The job schedulers' queue: `dispatch` every MAIL_SWEEP_INTERVAL_MS and
 * `notices` (trial ending) on the renewal sweep's interval. A queue of its
 * own since the embedded database could not wake a worker whose queue held
 * a delayed job (it can now); kept, as moving a job scheduler to another
 * queue would leave the one that deployments hold running unserved.
 */
export const MAIL_SCHEDULES_QUEUE = 'mail-schedules';

/**
 * `dispatch` enqueues a `send` per due message (from commit nudges, and
 * from the schedule on MAIL_SCHEDULES_QUEUE); `send` makes one attempt of
 * one message; `notices` writes the scheduled notices.
 */
export type MailJobName = 'dispatch' | 'send' | 'notices';

export interface MailSendJob {
  messageId: number;
  /** The attempt this job makes: the message's `attempts` + 1 when it was enqueued. */
  attempt: number;
}

const NUDGE_EVERY_MS = 20;

const SEND_OPTIONS: JobsOptions = {
  // A job that fails before it could record anything (database away) runs
  // again; the claim in PostgreSQL makes a second run of a claimed attempt a no-op.
  attempts: 5,
  backoff: { type: 'exponential', delay: 1000 },
  // Removed when finished, so that the sweep can enqueue an attempt again
  // whose job ended without settling it.
  removeOnComplete: true,
  removeOnFail: true,
};

/** Deterministic and free of ':' (BullMQ reserves it in ids). */
export function sendJobId(job: MailSendJob): string {
  return `mail-${job.messageId}-${job.attempt}`;
}

/** The mail queue's producers: nudges after commits, send jobs, the sweep schedule. */
@Injectable()
export class MailQueue implements OnModuleDestroy {
  private readonly logger = new Logger(MailQueue.name);
  private readonly throttled = throttle(NUDGE_EVERY_MS, () =>
    this.enqueueDispatch(),
  );

  constructor(
    @InjectQueue(MAIL_QUEUE) private readonly queue: Queue,
    @InjectQueue(MAIL_SCHEDULES_QUEUE) private readonly schedules: Queue,
  ) {
    queue.on('error', (error) =>
      this.logger.warn({ err: error }, 'Mail queue error'),
    );
  }

  /**
   * Asks a worker to dispatch due messages now. Only an optimisation: the
   * scheduled dispatch finds them too, so a lost nudge delays a message by
   * at most MAIL_SWEEP_INTERVAL_MS.
   */
  nudge(): void {
    this.throttled.call();
  }

  onModuleDestroy() {
    this.throttled.cancel();
  }

  async scheduleDispatch(everyMs: number): Promise<void> {
    await this.schedules.upsertJobScheduler(
      'mail-dispatch',
      { every: everyMs },
      {
        name: 'dispatch',
        opts: { removeOnComplete: true, removeOnFail: 100 },
      },
    );
  }

  async scheduleNotices(everyMs: number): Promise<void> {
    await this.schedules.upsertJobScheduler(
      'mail-notices',
      { every: everyMs },
      {
        name: 'notices',
        opts: { removeOnComplete: true, removeOnFail: 100 },
      },
    );
  }

  /** One job per attempt; an attempt already in the queue is not added twice. */
  async enqueueSends(jobs: MailSendJob[], delayMs = 0): Promise<void> {
    if (jobs.length === 0) return;
    await this.queue.addBulk(
      jobs.map((job) => ({
        name: 'send',
        data: job,
        opts: { ...SEND_OPTIONS, jobId: sendJobId(job), delay: delayMs },
      })),
    );
  }

  private enqueueDispatch() {
    this.queue
      .add('dispatch', null, { removeOnComplete: true, removeOnFail: 100 })
      .catch((error: unknown) =>
        this.logger.warn(
          { err: error },
          'Could not nudge the mail dispatcher; the schedule will pick the messages up',
        ),
      );
  }
}
