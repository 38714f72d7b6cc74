import {
  htmlResponse,
  htmlRefusals,
} from '../../http/openapi/json-api-schemas';
import { bool, exact, int, nullable, str, ts } from '../../http/openapi/schema';
import type {
  OpenApiContribution,
  OperationDoc,
} from '../../http/openapi/openapi-contribution';
import { MAIL_KINDS } from './mail-kinds';

function textPart(summary: string, description: string): OperationDoc {
  return {
    summary,
    description,
    tags: ['Local mailbox'],
    responses: {
      '200': {
        description,
        content: { 'text/plain': { schema: { type: 'string' } } },
      },
      ...htmlRefusals,
    },
  };
}

const OUTSIDE_PRODUCTION =
  'Outside production only (404 when NODE_ENV=production); no API key.';

export const mailOpenApi: OpenApiContribution = {
  resources: [
    {
      type: 'emails',
      description:
        'Extension, read only: an e-mail Zest recorded for a buyer, with its status and the SMTP reply.',
      attributes: {
        store_id: int(),
        customer_id: nullable(int()),
        kind: str(
          `One of ${MAIL_KINDS.map((kind) => `\`${kind}\``).join(', ')} (README "E-mail").`,
        ),
        to: str(),
        from: nullable(str('Set once the message is rendered.')),
        reply_to: nullable(str()),
        subject: nullable(str('Set once the message is rendered.')),
        status: str('`queued`, `sending`, `sent` or `failed`.'),
        status_formatted: str(),
        attempts: int(),
        smtp_reply: nullable(
          str("The SMTP server's last reply, or why there was none."),
        ),
        message_id: nullable(str()),
        sent_at: nullable(ts()),
        created_at: ts(),
        updated_at: ts(),
        test_mode: bool(),
      },
    },
  ],
  operations: {
    'GET /dev/mailbox': {
      summary: 'Local mailbox',
      description: `Every recorded e-mail, newest first (the latest 100). ${OUTSIDE_PRODUCTION}`,
      tags: ['Local mailbox'],
      responses: { '200': htmlResponse('The mailbox page.'), ...htmlRefusals },
    },
    'GET /dev/mailbox/{id}': {
      summary: 'A message in the local mailbox',
      description: `Its envelope, status and SMTP reply, with links to its parts. ${OUTSIDE_PRODUCTION}`,
      tags: ['Local mailbox'],
      responses: { '200': htmlResponse('The message page.'), ...htmlRefusals },
    },
    'GET /dev/mailbox/{id}/html': {
      summary: "A message's HTML part",
      description: `As the recipient sees it (no scripts). ${OUTSIDE_PRODUCTION}`,
      tags: ['Local mailbox'],
      responses: { '200': htmlResponse('The HTML part.'), ...htmlRefusals },
    },
    'GET /dev/mailbox/{id}/text': textPart(
      "A message's text part",
      `The plain-text part. ${OUTSIDE_PRODUCTION}`,
    ),
    'GET /dev/mailbox/{id}/source': textPart(
      "A message's raw source",
      `The message as the SMTP server receives it (RFC 5322, without the DKIM signature). ${OUTSIDE_PRODUCTION}`,
    ),
    'GET /portal/sign-in': {
      summary: 'Customer portal sign-in',
      description:
        'A form asking for the e-mail address the buyer bought with; it posts to a signed URL valid for an hour. No API key.',
      tags: ['Hosted pages'],
      responses: { '200': htmlResponse('The sign-in page.'), ...htmlRefusals },
    },
    'POST /portal/sign-in': {
      summary: 'Send a sign-in link (signed form URL)',
      description:
        'Mails every customer record with the address a link to its portal page, signed for an hour. The same page whether the address is known or not; limited per address and per client IP (429).',
      tags: ['Hosted pages'],
      requestBody: {
        required: true,
        content: {
          'application/x-www-form-urlencoded': {
            schema: exact({ email: str() }),
          },
          'application/json': { schema: exact({ email: str() }) },
        },
      },
      responses: {
        '200': { $ref: '#/components/responses/HtmlPage' },
        ...htmlRefusals,
      },
    },
  },
};
