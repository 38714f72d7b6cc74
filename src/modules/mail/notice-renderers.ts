import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { formatMoney } from '../../common/money/format';
import { SignedUrls } from '../../common/signed-urls.service';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { StoreService } from '../store/store.service';
import { MailMessage } from './mail-message.entity';
import { MailKind, RenderedMail } from './mail-kinds';
import { MailRecordsRepository } from './mail-records.repository';
import { MailRenderers } from './mail-renderers';
import { NoticeModel, renderNotice } from './notice.template';
import { DATE } from './order-receipt.template';

/** Links that grant access (payment method, portal) work this long from the send. */
const LINK_LIFETIME_MS = 24 * 3600 * 1000;

/** What `MailNotices` keeps on a notice; each kind uses its part. */
interface NoticeData {
  product?: string;
  variant?: string;
  status?: string;
  trialEndsAt?: string | null;
  renewsAt?: string | null;
  endsAt?: string | null;
  subscriptionId?: number;
  currency?: string;
  total?: number;
  amount?: number;
  refundedAmount?: number;
  full?: boolean;
  noun?: 'order' | 'invoice';
  orderNumber?: number;
  periodStart?: string | null;
  periodEnd?: string | null;
  invoiceUrl?: string | null;
}

const NOTICE_KINDS = [
  'subscription_started',
  'subscription_renewed',
  'subscription_payment_failed',
  'subscription_trial_ending',
  'subscription_cancelled',
  'subscription_expired',
  'subscription_resumed',
  'subscription_plan_changed',
  'refund_issued',
] as const satisfies readonly MailKind[];
type NoticeKind = (typeof NOTICE_KINDS)[number];

const date = (value: string | null | undefined) =>
  value ? DATE.format(new Date(value)) : null;

type Content = Pick<
  NoticeModel,
  'subject' | 'heading' | 'paragraphs' | 'facts' | 'button' | 'links'
>;

/**
 * Renders the subscription and refund notices from what their cause kept
 * and, for links and the next retry, the records as they are when sent.
 * Access links are signed fresh for 24 hours.
 */
@Injectable()
export class NoticeRenderers implements OnModuleInit {
  constructor(
    private readonly renderers: MailRenderers,
    private readonly stores: StoreService,
    private readonly records: MailRecordsRepository,
    private readonly signedUrls: SignedUrls,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit() {
    for (const kind of NOTICE_KINDS)
      this.renderers.register({
        kind,
        render: (message) => this.render(kind, message),
      });
  }

  private sign(path: string): string {
    return this.signedUrls.sign(this.config.http.publicBaseUrl, path, {
      expiresAt: new Date(Date.now() + LINK_LIFETIME_MS),
    });
  }

  private async render(
    kind: NoticeKind,
    message: MailMessage,
  ): Promise<RenderedMail | null> {
    const store = await this.stores.findById(message.storeId);
    if (!store) return null;
    const content = await this.content(
      kind,
      message,
      message.data as NoticeData,
    );
    if (!content) return null;
    return renderNotice({
      store: { name: store.name, logoUrl: store.avatarUrl },
      testMode: message.testMode,
      ...content,
      footer: `You receive this e-mail because you bought from ${store.name}.`,
    });
  }

  private async content(
    kind: NoticeKind,
    message: MailMessage,
    data: NoticeData,
  ): Promise<Content | null> {
    if (kind === 'refund_issued') return this.refund(data);
    const subscriptionId =
      kind === 'subscription_renewed' || kind === 'subscription_payment_failed'
        ? data.subscriptionId!
        : message.recordId;
    const s = await this.records.subscription(subscriptionId);
    if (!s) return null;
    const plan = `${s.productName} (${s.variantName})`;
    const portal = {
      text: 'Manage your subscription',
      url: this.sign(`/portal/customers/${s.customerId}`),
    };
    const money = (cents: number) => formatMoney(cents, data.currency ?? 'USD');
    switch (kind) {
      case 'subscription_started':
        return {
          subject: `Your ${s.productName} subscription has started`,
          heading: 'Welcome aboard!',
          paragraphs: [`Your subscription to ${plan} has started.`],
          facts: data.trialEndsAt
            ? [['Free trial ends', date(data.trialEndsAt)!]]
            : [['Renews', date(data.renewsAt)!]],
          button: portal,
          links: [],
        };
      case 'subscription_renewed':
        return {
          subject: `Your ${s.productName} subscription was renewed`,
          heading: 'Thanks for renewing',
          paragraphs: [`We charged your payment method for ${plan}.`],
          facts: [
            ['Amount', money(data.total!)],
            ['Period', `${date(data.periodStart)} – ${date(data.periodEnd)}`],
          ],
          button: portal,
          links: data.invoiceUrl
            ? [{ text: 'Download the invoice (PDF)', url: data.invoiceUrl }]
            : [],
        };
      case 'subscription_payment_failed': {
        // While past due, renews_at is the next retry (reference section 4).
        const retry =
          s.status === 'past_due' ? DATE.format(new Date(s.renewsAt)) : null;
        return {
          subject: `Your payment for ${s.productName} failed`,
          heading: 'We could not take your payment',
          paragraphs: [
            `The payment of ${money(data.total!)} for ${plan} did not go through. Please update your payment method to keep your subscription.`,
          ],
          facts: retry ? [['Next attempt', retry]] : [],
          button: {
            text: 'Update payment method',
            url: this.sign(
              `/portal/subscriptions/${subscriptionId}/payment-method`,
            ),
          },
          links: [],
        };
      }
      case 'subscription_trial_ending':
        return {
          subject: `Your ${s.productName} trial ends soon`,
          heading: 'Your free trial ends soon',
          paragraphs: [
            `Your trial of ${plan} ends on ${date(data.trialEndsAt)}; your payment method will then be charged unless you cancel.`,
          ],
          facts: [['Trial ends', date(data.trialEndsAt)!]],
          button: portal,
          links: [],
        };
      case 'subscription_cancelled':
        return {
          subject: `Your ${s.productName} subscription was cancelled`,
          heading: 'Your subscription was cancelled',
          paragraphs: [
            `Your subscription to ${plan} will not renew. You keep access until it ends.`,
          ],
          facts: data.endsAt ? [['Ends', date(data.endsAt)!]] : [],
          button: { ...portal, text: 'Resume your subscription' },
          links: [],
        };
      case 'subscription_expired':
        return {
          subject: `Your ${s.productName} subscription has ended`,
          heading: 'Your subscription has ended',
          paragraphs: [`Your subscription to ${plan} has ended.`],
          facts: [],
          button: null,
          links: [],
        };
      case 'subscription_resumed':
        return {
          subject: `Your ${s.productName} subscription was resumed`,
          heading: 'Your subscription was resumed',
          paragraphs: [`Your subscription to ${plan} is active again.`],
          facts: data.renewsAt ? [['Renews', date(data.renewsAt)!]] : [],
          button: portal,
          links: [],
        };
      case 'subscription_plan_changed':
        return {
          subject: `Your ${s.productName} plan was changed`,
          heading: 'Your plan was changed',
          paragraphs: [
            `Your subscription is now on ${data.product} (${data.variant}).`,
          ],
          facts: data.renewsAt ? [['Renews', date(data.renewsAt)!]] : [],
          button: portal,
          links: [],
        };
    }
  }

  private refund(data: NoticeData): Content {
    const money = (cents: number) => formatMoney(cents, data.currency!);
    const what =
      data.noun === 'order'
        ? `order #${data.orderNumber}`
        : 'your subscription payment';
    return {
      subject: data.full
        ? `Your refund for ${what}`
        : `A partial refund for ${what}`,
      heading: data.full ? 'You were refunded' : 'You were partly refunded',
      paragraphs: [
        `We refunded ${money(data.amount!)} for ${what}. Your bank may take a few days to show it.`,
      ],
      facts: [
        ['Refunded now', money(data.amount!)],
        ['Refunded in all', money(data.refundedAmount!)],
        ['Paid', money(data.total!)],
      ],
      button: null,
      links: [],
    };
  }
}
