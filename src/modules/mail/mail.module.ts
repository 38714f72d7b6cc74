import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CheckoutModule } from '../checkout/checkout.module';
import { DeliveryModule } from '../delivery/delivery.module';
import { InvoiceModule } from '../invoice/invoice.module';
import { LicensingModule } from '../licensing/licensing.module';
import { OrderModule } from '../order/order.module';
import { StoreModule } from '../store/store.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { registerResources } from '../../http/json-api/resource';
import { EmailController } from './email.controller';
import { EmailReader } from './email.reader';
import { EmailSerializer } from './email.serializer';
import { MailMessage } from './mail-message.entity';
import { MailMessageRepository } from './mail-message.repository';
import { MailNotices } from './mail-notices';
import { MailOutbox } from './mail-outbox';
import { MailRecordsRepository } from './mail-records.repository';
import { MailRenderers } from './mail-renderers';
import { MailSender } from './mail-sender.service';
import { MailTransport } from './mail-transport';
import { MAIL_SCHEDULES_QUEUE, MAIL_QUEUE, MailQueue } from './mail.queue';
import { MailboxController } from './mailbox.controller';
import { MailboxService } from './mailbox.service';
import { NoticeRenderers } from './notice-renderers';
import { OrderReceipt } from './order-receipt';
import { PortalSignIn } from './portal-sign-in';
import { PortalSignInController } from './portal-sign-in.controller';

/**
 * Transactional e-mail: the mail outbox written in the transactions of its
 * causes, the renderers of each kind, the sender (for MailProcessor), the
 * local mailbox, the notices written from the domain events (MailNotices),
 * the portal's sign-in page. The receipt's purchase extension runs after the license
 * keys exist (PURCHASE_EXTENSION_ORDER).
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([MailMessage]),
    BullModule.registerQueue({ name: MAIL_QUEUE }),
    BullModule.registerQueue({ name: MAIL_SCHEDULES_QUEUE }),
    StoreModule,
    OrderModule,
    CheckoutModule,
    LicensingModule,
    InvoiceModule,
    DeliveryModule,
    WebhooksModule,
  ],
  controllers: [MailboxController, EmailController, PortalSignInController],
  providers: [
    MailQueue,
    MailOutbox,
    MailMessageRepository,
    MailRenderers,
    MailTransport,
    MailSender,
    MailboxService,
    OrderReceipt,
    MailRecordsRepository,
    MailNotices,
    NoticeRenderers,
    PortalSignIn,
    EmailReader,
    EmailSerializer,
    registerResources({
      type: 'emails',
      serializer: EmailSerializer,
      reader: EmailReader,
    }),
  ],
  exports: [MailOutbox, MailSender, MailQueue, MailRecordsRepository],
})
export class MailModule {}
