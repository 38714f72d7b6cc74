import { randomUUID } from 'node:crypto';
import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Clock } from '../../common/clock';
import { parseMailbox } from '../../common/mail-address';
import { SignedUrls } from '../../common/signed-urls.service';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { StoreService } from '../store/store.service';
import { MailMessage } from './mail-message.entity';
import { RenderedMail } from './mail-kinds';
import { MailOutbox } from './mail-outbox';
import { MailRecordsRepository } from './mail-records.repository';
import { MailRenderer, MailRenderers } from './mail-renderers';
import { MailErrors } from './mail.errors';
import { renderNotice } from './notice.template';

/** The sign-in link opens the customer's portal for this long. */
export const SIGN_IN_LINK_MS = 3600 * 1000;
/** Requests a window allows, per address and per client IP. */
export const SIGN_IN_LIMITS = { perAddress: 5, perIp: 30, windowMs: 3600_000 };

/**
 * The customer portal's "send me a sign-in link": an address in, one
 * message per customer record with that address (a buyer may have bought
 * from several stores), each with a link to that customer's portal page
 * signed for an hour. The caller learns nothing about whether the address
 * is known: the answer and the limits are the same either way.
 */
@Injectable()
export class PortalSignIn implements MailRenderer, OnModuleInit {
  readonly kind = 'portal_sign_in';

  constructor(
    private readonly renderers: MailRenderers,
    private readonly outbox: MailOutbox,
    private readonly records: MailRecordsRepository,
    private readonly stores: StoreService,
    private readonly signedUrls: SignedUrls,
    private readonly clock: Clock,
    private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit() {
    this.renderers.register(this);
  }

  /** The address as typed, checked; 422 `invalid_email` when it is not one. */
  static address(raw: unknown): string {
    if (typeof raw !== 'string') throw MailErrors.invalidSignInEmail();
    const mailbox = parseMailbox(raw.trim());
    if (!mailbox || mailbox.name) throw MailErrors.invalidSignInEmail();
    return mailbox.address.toLowerCase();
  }

  /** Writes a sign-in message for every customer record with this address. */
  async request(address: string): Promise<void> {
    const customers = await this.records.customersByEmail(address);
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + SIGN_IN_LINK_MS).toISOString();
    for (const customer of customers)
      await this.outbox.record(this.dataSource.manager, {
        kind: 'portal_sign_in',
        storeId: customer.storeId,
        customerId: customer.id,
        testMode: customer.testMode,
        recordId: customer.id,
        // Every request is its own cause.
        cause: randomUUID(),
        to: customer.email,
        data: { expiresAt },
        now: new Date(),
      });
  }

  async render(message: MailMessage): Promise<RenderedMail | null> {
    const store = await this.stores.findById(message.storeId);
    if (!store) return null;
    const expiresAt = new Date(String(message.data.expiresAt));
    const url = this.signedUrls.sign(
      this.config.http.publicBaseUrl,
      `/portal/customers/${message.recordId}`,
      { expiresAt },
    );
    return renderNotice({
      store: { name: store.name, logoUrl: store.avatarUrl },
      testMode: message.testMode,
      subject: `Your sign-in link for ${store.name}`,
      heading: 'Sign in to your account',
      paragraphs: [
        `Use the button below to see your orders, downloads, license keys and subscriptions with ${store.name}. The link works for one hour.`,
        'If you did not ask for it, you can ignore this e-mail.',
      ],
      facts: [],
      button: { text: 'Open your account', url },
      links: [],
      testModeNote: "Test mode: this link opens the store's test-mode account.",
      footer: `You receive this e-mail because someone asked for a sign-in link for this address at ${store.name}.`,
    });
  }
}
