import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Controller, Get, Header, Param, Res } from '@nestjs/common';
import { ApiExcludeEndpoint } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import getAbsoluteFSPath from 'swagger-ui-dist/absolute-path.js';
import { AppError } from '../../common/app-error';
import { Public } from '../auth/public.decorator';
import { NotJsonApi } from '../json-api/not-json-api.decorator';
import { RateLimit } from '../rate-limit/rate-limit.decorator';
import { OpenApiService } from './openapi.service';

/** The viewer's files that the page loads; nothing else of the package is served. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Zest API reference</title>
<link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

const INIT_SCRIPT = `window.ui = SwaggerUIBundle({
  url: '/v1/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
  persistAuthorization: false,
  filter: true,
});
`;

// Swagger UI styles elements inline; it loads nothing from other origins.
const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'";

/** The OpenAPI document and the reference page that renders it (Swagger UI from node_modules). */
@Controller()
@Public()
@RateLimit('page')
@NotJsonApi()
export class OpenApiController {
  constructor(private readonly openApi: OpenApiService) {}

  @Get('v1/openapi.json')
  document() {
    return this.openApi.get();
  }

  @Get('docs')
  @ApiExcludeEndpoint()
  @Header('content-type', 'text/html; charset=utf-8')
  @Header('content-security-policy', DOCS_CSP)
  page() {
    return DOCS_PAGE;
  }

  @Get('docs/:asset')
  @ApiExcludeEndpoint()
  async asset(
    @Param('asset') name: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    void reply.header('cache-control', 'public, max-age=3600');
    if (name === 'init.js') {
      void reply.header('content-type', ASSETS['swagger-ui-bundle.js']);
      return INIT_SCRIPT;
    }
    const type = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (!type) throw AppError.notFound('No such file.');
    void reply.header('content-type', type);
    return readFile(join(getAbsoluteFSPath(), name));
  }
}
