import { applyDecorators, Header, UseFilters } from '@nestjs/common';
import { NotJsonApi } from '../json-api/json-api-content-type.interceptor';
import { HTML_PAGE_HEADERS } from './html';
import { HtmlErrorFilter } from './html-error.filter';

/** A route (method) that answers a server-rendered HTML page. */
export const HtmlPage = () =>
  applyDecorators(
    NotJsonApi(),
    UseFilters(HtmlErrorFilter),
    ...Object.entries(HTML_PAGE_HEADERS).map(([name, value]) =>
      Header(name, value),
    ),
  );
