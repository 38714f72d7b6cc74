import { Inject, Injectable, INestApplication } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { OPENAPI_CONTRIBUTIONS } from './openapi-contribution';
import type { OpenApiContribution } from './openapi-contribution';
import { buildOpenApiDocument } from './openapi-document';

/** The server the checked-in docs/openapi.json names; a deployment serves its own PUBLIC_BASE_URL. */
export const DOCUMENT_SERVER = 'http://localhost:3000';

/**
 * The OpenAPI document of this server, built once from the running
 * application on first use (the resource types register themselves during
 * start-up, so it cannot be built earlier).
 */
@Injectable()
export class OpenApiService {
  private app: INestApplication | undefined;
  private document: OpenAPIObject | undefined;

  constructor(
    @Inject(OPENAPI_CONTRIBUTIONS)
    private readonly contributions: OpenApiContribution[],
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Called by the bootstrap once the application exists. */
  attach(app: INestApplication) {
    this.app = app;
  }

  /** The document as served: its server is PUBLIC_BASE_URL. */
  get(): OpenAPIObject {
    this.document ??= this.build(this.config.http.publicBaseUrl);
    return this.document;
  }

  /** A fresh document naming another server (the checked-in copy names a placeholder). */
  build(serverUrl: string): OpenAPIObject {
    if (!this.app) throw new Error('OpenApiService is not attached to an app');
    return buildOpenApiDocument(this.app, this.contributions, serverUrl);
  }
}
