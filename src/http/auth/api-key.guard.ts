import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AppError } from '../../common/app-error';
import { ApiKeyService } from '../../modules/account/api-key.service';
import { AuthenticatedRequest } from './principal';
import { IS_PUBLIC } from './public.decorator';

interface RequestWithHeaders extends AuthenticatedRequest {
  headers: Record<string, string | string[] | undefined>;
}

/** Every route needs `Authorization: Bearer <key>` unless it is marked @Public(). */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly apiKeys: ApiKeyService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (isPublic) return true;
    const request = context.switchToHttp().getRequest<RequestWithHeaders>();
    const header = request.headers.authorization;
    if (typeof header !== 'string' || header.trim() === '') {
      throw AppError.unauthorized(
        'Authentication is required: send Authorization: Bearer <API key>.',
      );
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match)
      throw AppError.unauthorized(
        'The Authorization header must be "Bearer <API key>".',
      );
    request.principal = await this.apiKeys.authenticate(match[1]);
    return true;
  }
}
