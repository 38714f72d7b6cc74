import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { Principal } from '../../common/principal';

export interface AuthenticatedRequest {
  principal?: Principal;
}

/** The authenticated caller of a `/v1` route (set by the API-key guard). */
export const CurrentPrincipal = createParamDecorator(
  (_: unknown, context: ExecutionContext): Principal => {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    if (!request.principal) {
      throw new Error(
        'CurrentPrincipal used on a route without the API-key guard',
      );
    }
    return request.principal;
  },
);
