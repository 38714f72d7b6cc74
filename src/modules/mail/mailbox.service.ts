import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { MailMessage } from './mail-message.entity';
import { MailSender } from './mail-sender.service';
import { MailErrors } from './mail.errors';

/** Messages shown per mailbox page, newest first. */
export const MAILBOX_PAGE = 100;

/**
 * The local mailbox (/dev/mailbox): every recorded message, outside
 * production only. It has no key: it is meant for a developer's machine,
 * where no message left the process (no MAIL_URL) or a test server got it.
 */
@Injectable()
export class MailboxService {
  constructor(
    @InjectRepository(MailMessage)
    private readonly messages: Repository<MailMessage>,
    private readonly sender: MailSender,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async list(): Promise<MailMessage[]> {
    this.checkOpen();
    return this.messages.find({
      order: { id: 'DESC' },
      take: MAILBOX_PAGE,
    });
  }

  async find(id: number): Promise<MailMessage> {
    this.checkOpen();
    const message = await this.messages.findOneBy({ id });
    if (!message) throw MailErrors.messageNotFound();
    return message;
  }

  /** A rendered message's part or raw source; 404 until it is rendered. */
  async part(id: number, part: 'html' | 'text' | 'source'): Promise<string> {
    const message = await this.find(id);
    if (message.subject === null) throw MailErrors.messageNotFound();
    if (part === 'source') return this.sender.source(message);
    return message[part]!;
  }

  private checkOpen() {
    if (!this.config.mail.mailbox) throw MailErrors.messageNotFound();
  }
}
