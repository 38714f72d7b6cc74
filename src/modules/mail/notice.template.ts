import { RenderedMail } from './mail-kinds';
import { compile, escapeHtml, Slots } from './order-receipt.template';

/**
 * Everything a notice (every message but the receipt) shows: a heading,
 * paragraphs, labelled facts, a button and further links. Strings are plain
 * text, escaped here.
 */
export interface NoticeModel {
  store: { name: string; logoUrl: string | null };
  testMode: boolean;
  /** Without the test-mode prefix, which is added here. */
  subject: string;
  heading: string;
  paragraphs: string[];
  facts: [label: string, value: string][];
  button: { text: string; url: string } | null;
  links: { text: string; url: string }[];
  /** Why the buyer receives this. */
  footer: string;
  /** The test-mode banner's text, when the default (about payments) does not fit. */
  testModeNote?: string;
}

const TEST_MODE = 'Test mode: no real payment was taken or refunded.';

export function noticeSubject(model: NoticeModel): string {
  return model.testMode ? `[Test mode] ${model.subject}` : model.subject;
}

/** A notice: responsive HTML by MJML (one compile per shape), and plain text. */
export async function renderNotice(model: NoticeModel): Promise<RenderedMail> {
  const slots = new Slots();
  const html = slots.fill(await compile(noticeMjml(model, slots)));
  return { subject: noticeSubject(model), html, text: noticeText(model) };
}

function noticeMjml(model: NoticeModel, slots: Slots): string {
  const escape = (value: string | number) => slots.put(escapeHtml(value));
  const testBanner = model.testMode
    ? `<mj-section background-color="#fff4e5" padding="10px 24px">
        <mj-column><mj-text align="center" color="#8a4b00" font-weight="600">${escape(model.testModeNote ?? TEST_MODE)}</mj-text></mj-column>
      </mj-section>`
    : '';
  const logo = model.store.logoUrl
    ? `<mj-image src="${escape(model.store.logoUrl)}" alt="${escape(model.store.name)}" width="64px" padding="0 0 8px" />`
    : '';
  const paragraphs = model.paragraphs
    .map((text) => `<mj-text padding="0 0 12px">${escape(text)}</mj-text>`)
    .join('');
  const facts =
    model.facts.length === 0
      ? ''
      : `<mj-table padding="0 0 8px" font-size="15px">${model.facts
          .map(
            ([label, value]) => `<tr>
        <td style="padding:4px 0;color:#59636e">${escape(label)}</td>
        <td style="padding:4px 0;text-align:right">${escape(value)}</td>
      </tr>`,
          )
          .join('')}</mj-table>`;
  const button = model.button
    ? `<mj-button href="${escape(model.button.url)}" background-color="#5423e7" color="#ffffff" font-size="15px" font-weight="600" border-radius="6px" inner-padding="12px 24px" padding="8px 0">${escape(model.button.text)}</mj-button>`
    : '';
  const links = model.links
    .map(
      (link) =>
        `<mj-text align="center" font-size="13px" padding="8px 0 0"><a href="${escape(link.url)}" style="color:#5423e7">${escape(link.text)}</a></mj-text>`,
    )
    .join('');
  return `<mjml lang="en">
  <mj-head>
    <mj-title>${escape(noticeSubject(model))}</mj-title>
    <mj-preview>${escape(model.heading)}</mj-preview>
    <mj-attributes>
      <mj-all font-family="-apple-system, Segoe UI, Roboto, Helvetica, Arial, sans-serif" />
      <mj-text font-size="15px" line-height="1.5" color="#1f2328" padding="0" />
    </mj-attributes>
  </mj-head>
  <mj-body background-color="#f3f4f6" width="600px">
    <mj-section padding="24px 0 8px"><mj-column>
      ${logo}
      <mj-text align="center" font-size="18px" font-weight="700">${escape(model.store.name)}</mj-text>
    </mj-column></mj-section>
    ${testBanner}
    <mj-section background-color="#ffffff" padding="24px">
      <mj-column>
        <mj-text font-size="22px" font-weight="700" padding="0 0 12px">${escape(model.heading)}</mj-text>
        ${paragraphs}
        ${facts}
        ${button}
        ${links}
      </mj-column>
    </mj-section>
    <mj-section padding="16px 24px 32px"><mj-column>
      <mj-text align="center" font-size="12px" color="#59636e">${escape(model.footer)}</mj-text>
    </mj-column></mj-section>
  </mj-body>
</mjml>`;
}

function noticeText(model: NoticeModel): string {
  const lines: string[] = [];
  if (model.testMode) lines.push(model.testModeNote ?? TEST_MODE, '');
  lines.push(model.heading, `${model.store.name}`, '');
  for (const text of model.paragraphs) lines.push(text, '');
  for (const [label, value] of model.facts) lines.push(`${label}: ${value}`);
  if (model.facts.length > 0) lines.push('');
  if (model.button) lines.push(`${model.button.text}: ${model.button.url}`);
  for (const link of model.links) lines.push(`${link.text}: ${link.url}`);
  lines.push('', model.footer);
  return `${lines.join('\n')}\n`;
}
