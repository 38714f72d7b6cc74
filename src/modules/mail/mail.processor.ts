import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import {
  Inject,
  Logger,
  OnApplicationBootstrap,
  OnModuleDestroy,
} from '@nestjs/common';
import { Job } from 'bullmq';
import { RepeatingTask, repeatEvery } from '../../common/repeat-every';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { Clock } from '../../common/clock';
import { MailOutbox } from './mail-outbox';
import { MailRecordsRepository } from './mail-records.repository';
import { MailSender } from './mail-sender.service';
import {
  MAIL_SCHEDULES_QUEUE,
  MAIL_QUEUE,
  MailJobName,
  MailQueue,
  MailSendJob,
} from './mail.queue';

/**
 * Sends the mail outbox: `dispatch` jobs (commit nudges, and a job
 * scheduler every MAIL_SWEEP_INTERVAL_MS that also recovers expired claims)
 * and `send` jobs, MAIL_CONCURRENCY at once.
 */
@Processor(MAIL_QUEUE)
export class MailProcessor
  extends WorkerHost
  implements OnApplicationBootstrap, OnModuleDestroy
{
  private readonly logger = new Logger(MailProcessor.name);
  private schedules: RepeatingTask | undefined;

  constructor(
    private readonly sender: MailSender,
    private readonly queue: MailQueue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  onApplicationBootstrap() {
    this.worker.concurrency = this.config.mail.concurrency;
    const every = this.config.mail.sweepIntervalMs;
    const notices = this.config.billing.sweepIntervalMs;
    this.schedules = repeatEvery(
      Math.max(10 * every, 1000),
      async () => {
        await this.queue.scheduleDispatch(every);
        await this.queue.scheduleNotices(notices);
      },
      (error) =>
        this.logger.warn({ err: error }, 'Could not schedule mail dispatch'),
    );
  }

  async onModuleDestroy() {
    this.schedules?.stop();
    // Closing waits for no job in flight: an interrupted attempt keeps its
    // claim, which expires and is sent again (README "E-mail"). A graceful
    // close hung on the embedded database's single session.
    await this.worker.close(true);
  }

  @OnWorkerEvent('error')
  onWorkerError(error: Error) {
    this.logger.warn({ err: error }, 'Mail worker error');
  }

  /** A job that threw (database away, a renderer bug): BullMQ retries it. */
  @OnWorkerEvent('failed')
  onFailed(job: Job | undefined, error: Error) {
    this.logger.warn({ err: error, jobId: job?.id }, 'Mail job failed');
  }

  async process(job: Job<MailSendJob | null, void, MailJobName>) {
    if (job.name === 'dispatch') await this.sender.dispatch();
    else if (job.data) await this.sender.attempt(job.data);
  }
}

/**
 * The schedules: `dispatch` (the sweep that also recovers expired claims)
 * and `notices`, the trial-ending reminders due on the worker clock's
 * instant.
 */
@Processor(MAIL_SCHEDULES_QUEUE)
export class MailSchedulesProcessor extends WorkerHost {
  constructor(
    private readonly sender: MailSender,
    private readonly queue: MailQueue,
    private readonly records: MailRecordsRepository,
    private readonly outbox: MailOutbox,
    private readonly clock: Clock,
  ) {
    super();
  }

  async process(job: Job<null, void, MailJobName>): Promise<void> {
    if (job.name === 'dispatch') {
      await this.sender.dispatch();
      return;
    }
    if (!this.outbox.enabled) return;
    const written = await this.records.recordTrialEndings(this.clock.now());
    if (written > 0) this.queue.nudge();
  }

  async onModuleDestroy() {
    await this.worker.close(true);
  }
}
