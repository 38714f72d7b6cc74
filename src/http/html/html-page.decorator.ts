import { applyDecorators, Header } from '@nestjs/common';
import { ErrorFormat } from '../errors/error-format';
import { NotJsonApi } from '../json-api/not-json-api.decorator';
import { HTML_PAGE_HEADERS } from './html';

/** A route (method) that answers a server-rendered HTML page, errors included. */
export const HtmlPage = () =>
  applyDecorators(
    NotJsonApi(),
    ErrorFormat({ kind: 'html' }),
    ...Object.entries(HTML_PAGE_HEADERS).map(([name, value]) =>
      Header(name, value),
    ),
  );
