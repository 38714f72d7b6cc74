import { STATUS_CODES } from 'node:http';
import { FastifyReply, FastifyRequest } from 'fastify';
import { escapeHtml, HTML_PAGE_HEADERS } from '../html/html';
import { htmlPage } from '../html/layout';
import { RenderedError, sendJsonApiError } from './json-api-errors';

/**
 * Whether an error of a page goes to a person: a posted form did come from
 * one, a JSON body from a program, and otherwise Accept tells.
 */
function wantsPage(request: FastifyRequest): boolean {
  const type = request.headers['content-type'] ?? '';
  if (/json/i.test(type)) return false;
  if (/^\s*application\/x-www-form-urlencoded/i.test(type)) return true;
  return (request.headers.accept ?? '').includes('text/html');
}

/**
 * Errors of server-rendered pages: a browser (a form post, or Accept:
 * text/html) gets a small error page, any other client the JSON:API error
 * document; neither is cached, as the pages themselves are not.
 */
export function sendHtmlError(
  request: FastifyRequest,
  reply: FastifyReply,
  rendered: RenderedError,
) {
  if (!wantsPage(request)) {
    sendJsonApiError(reply, rendered, { 'cache-control': 'no-store' });
    return;
  }
  const title = STATUS_CODES[rendered.status] ?? 'Error';
  const body = `<h1>${escapeHtml(title)}</h1>\n${rendered.errors
    .map((error) => `<p class="sub">${escapeHtml(error.detail)}</p>`)
    .join('\n')}`;
  void reply
    .status(rendered.status)
    .headers(rendered.headers)
    .headers(HTML_PAGE_HEADERS)
    .send(htmlPage(title, body));
}
