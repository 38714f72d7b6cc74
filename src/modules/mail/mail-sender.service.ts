import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { parseMailbox } from '../../common/mail-address';
import { MetricsService } from '../../metrics/metrics.service';
import { StoreService } from '../store/store.service';
import { Store } from '../store/store.entity';
import { MailContent, MailMessageRepository } from './mail-message.repository';
import { MailMessage } from './mail-message.entity';
import { MailRenderers } from './mail-renderers';
import { MailTransport, OutgoingMail } from './mail-transport';
import { MailQueue, MailSendJob } from './mail.queue';

/** Messages handed to the queue per dispatch. */
const DISPATCH_BATCH = 1000;

/**
 * The worker's half of the mail outbox. `dispatch` hands due messages to
 * the queue, one job per attempt; `attempt` renders (first time only),
 * claims, sends and records one attempt.
 *
 * At most once per message where the transport can tell: the claim
 * (`sending`, with the Message-ID) is committed before the SMTP call, so a
 * duplicate job or a second worker finds the attempt taken and does
 * nothing. What no transport can tell is a worker killed after the server
 * accepted the message (its final 250) and before `sent` was recorded: the
 * claim expires and the message goes out again, with the same Message-ID.
 */
@Injectable()
export class MailSender {
  private readonly logger = new Logger(MailSender.name);
  private readonly defaultFrom: { name: string; address: string };

  constructor(
    private readonly messages: MailMessageRepository,
    private readonly queue: MailQueue,
    private readonly transport: MailTransport,
    private readonly renderers: MailRenderers,
    private readonly stores: StoreService,
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.defaultFrom = parseMailbox(config.mail.from) ?? {
      name: 'Zest',
      address: 'no-reply@localhost',
    };
  }

  /**
   * How long a claim holds: every SMTP step of one send may take
   * MAIL_TIMEOUT_MS, and a send may first wait for a pooled connection
   * behind the other sends in flight.
   */
  get claimMs(): number {
    const { timeoutMs, concurrency, smtpConnections } = this.config.mail;
    const queued = Math.ceil(concurrency / smtpConnections);
    return queued * 4 * timeoutMs + 5000;
  }

  get maxAttempts(): number {
    return this.config.mail.retryDelaysMs.length + 1;
  }

  /** Re-queues expired claims and hands every due message to the queue. */
  async dispatch(): Promise<number> {
    const recovered = await this.messages.requeueExpiredClaims();
    if (recovered > 0)
      this.logger.warn(
        { recovered },
        'Re-queued mail whose sending worker stopped mid-send',
      );
    let handed = 0;
    for (;;) {
      const jobs = await this.messages.takeDue(DISPATCH_BATCH);
      await this.queue.enqueueSends(jobs);
      handed += jobs.length;
      if (jobs.length < DISPATCH_BATCH) return handed;
    }
  }

  async attempt(job: MailSendJob): Promise<void> {
    const message = await this.messages.findById(job.messageId);
    if (
      !message ||
      message.status !== 'queued' ||
      message.attempts !== job.attempt - 1
    )
      return;
    let content: MailContent | null = null;
    if (message.subject === null) {
      content = await this.render(message);
      if (!content) {
        await this.messages.failUnsendable(
          job,
          'The record this message is about no longer exists.',
        );
        this.metrics.mailMessages.inc({ outcome: 'failed' });
        return;
      }
    }
    const claimed = await this.messages.claim(job, content, this.claimMs);
    if (!claimed) return;
    const outcome = await this.transport.send(outgoing(claimed));
    if (outcome.status === 'sent') {
      await this.messages.markSent(job, outcome.reply);
      this.metrics.mailMessages.inc({ outcome: 'sent' });
      return;
    }
    const retries = job.attempt < this.maxAttempts;
    if (outcome.status === 'failed' || !retries) {
      await this.messages.markFailed(job, outcome.reply);
      this.metrics.mailMessages.inc({ outcome: 'failed' });
      this.logger.warn(
        { mailMessageId: message.id, attempts: job.attempt },
        'Mail failed',
      );
      return;
    }
    const delay = this.config.mail.retryDelaysMs[job.attempt - 1];
    if (await this.messages.markRetry(job, outcome.reply, delay)) {
      this.metrics.mailMessages.inc({ outcome: 'retrying' });
      // A lost job is found again by the dispatch once the attempt is due.
      await this.queue
        .enqueueSends(
          [{ messageId: job.messageId, attempt: job.attempt + 1 }],
          delay,
        )
        .catch((error: unknown) =>
          this.logger.warn({ err: error }, 'Could not enqueue a mail retry'),
        );
    }
  }

  /** The message as its transport sends it, for the mailbox's raw view. */
  source(message: MailMessage): Promise<string> {
    return this.transport.source(outgoing(message));
  }

  private async render(message: MailMessage): Promise<MailContent | null> {
    const [rendered, store] = await Promise.all([
      this.renderers.render(message),
      this.stores.findById(message.storeId),
    ]);
    if (!rendered || !store) return null;
    const from = this.fromOf(store);
    return {
      ...rendered,
      from: formatMailbox(from),
      replyTo: store.mailReplyTo,
      messageId: `<${randomUUID()}@${from.address.split('@')[1]}>`,
    };
  }

  /** The store's own From, or the deployment's address under the store's name. */
  private fromOf(store: Store): { name: string; address: string } {
    const own = store.mailFrom ? parseMailbox(store.mailFrom) : null;
    if (own) return own;
    return { name: store.name, address: this.defaultFrom.address };
  }
}

function formatMailbox(mailbox: { name: string; address: string }): string {
  if (!mailbox.name) return mailbox.address;
  // A quoted display name: a store name may hold commas, dots or quotes.
  return `"${mailbox.name.replace(/["\\\r\n]/g, '')}" <${mailbox.address}>`;
}

function outgoing(message: MailMessage): OutgoingMail {
  return {
    from: message.fromAddress!,
    replyTo: message.replyTo,
    to: message.toAddress,
    subject: message.subject!,
    html: message.html!,
    text: message.text!,
    messageId: message.messageId!,
    date: message.createdAt,
  };
}
