import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { Clock } from './clock';
import {
  SignatureCheck,
  SignOptions,
  signUrl,
  verifyPath,
} from './signed-urls';

/** Signed links keyed with APP_KEY, on the injectable clock (see signed-urls.ts). */
@Injectable()
export class SignedUrls {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  /**
   * An absolute URL: `baseUrl` (e.g. `config.http.publicBaseUrl` or
   * `config.http.checkoutBaseUrl`) followed by `pathAndQuery`, signed.
   */
  sign(baseUrl: string, pathAndQuery: string, options: SignOptions = {}) {
    return signUrl(this.config.appKey, baseUrl, pathAndQuery, options);
  }

  /** Checks a request's path and query, e.g. Fastify's `request.url`. */
  verify(pathAndQuery: string): SignatureCheck {
    return verifyPath(this.config.appKey, pathAndQuery, this.clock.now());
  }
}
