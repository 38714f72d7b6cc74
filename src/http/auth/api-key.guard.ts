import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { FastifyRequest } from 'fastify';
import { AppError } from '../../common/app-error';
import { Principal } from '../../common/principal';
import { ApiKeyService } from '../../modules/account/api-key.service';
import { AuthFailureLimiter } from '../rate-limit/auth-failure-limiter';
import { AuthenticatedRequest } from './principal';
import { IS_PUBLIC } from './public.decorator';
import { HttpErrorCodes } from '../errors/http-error-codes';

/**
 * Every route needs `Authorization: Bearer <key>` unless it is marked
 * @Public(). Each refusal counts against the client IP; past
 * AUTH_FAILURE_LIMIT_PER_MINUTE the 401 carries Retry-After and a code.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly apiKeys: ApiKeyService,
    private readonly failures: AuthFailureLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (isPublic) return true;
    const request = context
      .switchToHttp()
      .getRequest<FastifyRequest & AuthenticatedRequest>();
    try {
      request.principal = await this.authenticate(
        request.headers.authorization,
      );
    } catch (error) {
      if (error instanceof AppError && error.status === 401)
        throw await this.failures.refusal(request.ip, error);
      throw error;
    }
    return true;
  }

  private async authenticate(header: string | undefined): Promise<Principal> {
    if (typeof header !== 'string' || header.trim() === '') {
      throw AppError.unauthorized(
        'Authentication is required: send Authorization: Bearer <API key>.',
        HttpErrorCodes.authenticationRequired,
      );
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match)
      throw AppError.unauthorized(
        'The Authorization header must be "Bearer <API key>".',
        HttpErrorCodes.authorizationMalformed,
      );
    return this.apiKeys.authenticate(match[1]);
  }
}
