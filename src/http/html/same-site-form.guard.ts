import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../common/app-error';
import { HttpErrorCodes } from '../errors/http-error-codes';

/**
 * CSRF defence for the portal's form posts, beside the signed form target
 * (an unguessable, expiring URL only the page itself carries): a browser's
 * cross-site post is refused by its `Sec-Fetch-Site` header, or, from a
 * browser without it, by an `Origin` whose host is not the request's. Clients
 * that send neither (scripts, tests) need the signed link like anyone else.
 */
@Injectable()
export class SameSiteFormGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const site = request.headers['sec-fetch-site'];
    if (site === 'cross-site') throw refused();
    const origin = request.headers.origin;
    if (site === undefined && origin !== undefined) {
      let host: string | null = null;
      try {
        host = new URL(origin).host;
      } catch {
        host = null;
      }
      // `request.host` honours X-Forwarded-Host only behind a trusted proxy.
      if (host === null || host !== request.host) throw refused();
    }
    return true;
  }
}

const refused = () =>
  AppError.forbidden(
    'Forms of this page can only be sent from the page itself.',
    HttpErrorCodes.crossSiteFormRefused,
  );
