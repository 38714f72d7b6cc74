import { Controller, Get, Header, Param } from '@nestjs/common';
import { formatTimestamp } from '../../common/timestamps';
import { Public } from '../../http/auth/public.decorator';
import { ErrorFormat } from '../../http/errors/error-format';
import { HtmlPage } from '../../http/html/html-page.decorator';
import { escapeHtml } from '../../http/html/html';
import { htmlPage } from '../../http/html/layout';
import { IntegerIdPipe } from '../../http/json-api/integer-id.pipe';
import { NotJsonApi } from '../../http/json-api/not-json-api.decorator';
import { RateLimit } from '../../http/rate-limit/rate-limit.decorator';
import { MailMessage } from './mail-message.entity';
import { MailErrors } from './mail.errors';
import { MailboxService } from './mailbox.service';

/** A message id: one that cannot be an id is the mailbox's own 404. */
const MESSAGE_ID = new IntegerIdPipe(MailErrors.messageNotFound);

const TEXT_HEADERS = {
  'content-type': 'text/plain; charset=utf-8',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};

/**
 * The local mailbox, outside production only (404 in production): the
 * list, each message's details, its HTML part as the recipient sees it, its
 * text part and its raw source. Counted per client IP like other pages.
 */
@Controller('dev/mailbox')
@Public()
@RateLimit('page')
export class MailboxController {
  constructor(private readonly mailbox: MailboxService) {}

  @Get()
  @HtmlPage()
  async list(): Promise<string> {
    return renderList(await this.mailbox.list());
  }

  @Get(':id')
  @HtmlPage()
  async one(@Param('id', MESSAGE_ID) id: number): Promise<string> {
    return renderMessage(await this.mailbox.find(id));
  }

  /** The message's own HTML: no scripts, and images load as in a mail client. */
  @Get(':id/html')
  @NotJsonApi()
  @ErrorFormat({ kind: 'html' })
  @Header('content-type', 'text/html; charset=utf-8')
  @Header('cache-control', 'no-store')
  @Header('x-content-type-options', 'nosniff')
  @Header(
    'content-security-policy',
    "default-src 'none'; style-src 'unsafe-inline'; img-src https: http: data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  )
  html(@Param('id', MESSAGE_ID) id: number): Promise<string> {
    return this.mailbox.part(id, 'html');
  }

  @Get(':id/text')
  @NotJsonApi()
  @ErrorFormat({ kind: 'html' })
  @Header('content-type', TEXT_HEADERS['content-type'])
  @Header('cache-control', TEXT_HEADERS['cache-control'])
  @Header('x-content-type-options', TEXT_HEADERS['x-content-type-options'])
  text(@Param('id', MESSAGE_ID) id: number): Promise<string> {
    return this.mailbox.part(id, 'text');
  }

  @Get(':id/source')
  @NotJsonApi()
  @ErrorFormat({ kind: 'html' })
  @Header('content-type', TEXT_HEADERS['content-type'])
  @Header('cache-control', TEXT_HEADERS['cache-control'])
  @Header('x-content-type-options', TEXT_HEADERS['x-content-type-options'])
  source(@Param('id', MESSAGE_ID) id: number): Promise<string> {
    return this.mailbox.part(id, 'source');
  }
}

function renderList(messages: MailMessage[]): string {
  const rows = messages
    .map(
      (m) => `<tr>
<td><a href="/dev/mailbox/${m.id}">${m.id}</a></td>
<td>${escapeHtml(formatTimestamp(m.createdAt))}</td>
<td>${escapeHtml(m.toAddress)}</td>
<td>${m.subject === null ? '<em>not rendered yet</em>' : escapeHtml(m.subject)}</td>
<td>${escapeHtml(m.kind)}</td>
<td>${escapeHtml(m.status)}${m.testMode ? ' (test)' : ''}</td>
</tr>`,
    )
    .join('\n');
  const body =
    messages.length === 0
      ? '<p class="empty">No messages yet. A purchase puts its receipt here.</p>'
      : `<table><thead><tr><th>#</th><th>Created</th><th>To</th><th>Subject</th><th>Kind</th><th>Status</th></tr></thead><tbody>${rows}</tbody></table>`;
  return htmlPage(
    'Mailbox',
    `<h1>Mailbox</h1><p class="sub">Every e-mail Zest recorded, newest first (the latest 100). Shown outside production only.</p>${body}`,
  );
}

function renderMessage(m: MailMessage): string {
  const field = (name: string, value: string | number | null) =>
    `<tr><th>${escapeHtml(name)}</th><td class="mono">${escapeHtml(value ?? '-')}</td></tr>`;
  const parts =
    m.subject === null
      ? '<p class="empty">The worker has not rendered this message yet.</p>'
      : `<p><a href="/dev/mailbox/${m.id}/html">HTML part</a> · <a href="/dev/mailbox/${m.id}/text">Text part</a> · <a href="/dev/mailbox/${m.id}/source">Raw source</a></p>`;
  return htmlPage(
    m.subject ?? `Message ${m.id}`,
    `<p><a href="/dev/mailbox">← Mailbox</a></p>
<h1>${escapeHtml(m.subject ?? `Message ${m.id}`)}</h1>
<table>
${field('From', m.fromAddress)}
${field('To', m.toAddress)}
${field('Reply-To', m.replyTo)}
${field('Kind', m.kind)}
${field('Cause', m.causeKey)}
${field('Mode', m.testMode ? 'test' : 'live')}
${field('Status', m.status)}
${field('Attempts', m.attempts)}
${field('SMTP reply', m.smtpReply)}
${field('Message-ID', m.messageId)}
${field('Created', formatTimestamp(m.createdAt))}
${field('Sent', m.sentAt ? formatTimestamp(m.sentAt) : null)}
</table>
${parts}`,
  );
}
