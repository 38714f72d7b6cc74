import { Controller, Get, Param, Query } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import { parseIntegerId } from '../../common/ids';
import type { RawQuery } from '../../common/list-query';
import type { Principal } from '../../common/principal';
import { CurrentPrincipal } from '../../http/auth/principal';
import { SingleDocument } from '../../http/json-api/document';
import { JsonApi } from '../../http/json-api/json-api.service';
import { assertOnlyParameters } from '../../http/json-api/list-query';
import { userRenderer } from './user.serializer';
import { UserService } from './user.service';

@Controller('v1/users')
export class UserController {
  constructor(
    private readonly users: UserService,
    private readonly jsonApi: JsonApi,
  ) {}

  @Get('me')
  me(@CurrentPrincipal() principal: Principal, @Query() query: RawQuery) {
    return this.render(principal, principal.userId, query);
  }

  /** The `self` link of /users/me; a key sees only its own user. */
  @Get(':id')
  one(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: RawQuery,
  ) {
    if (parseIntegerId(id) !== principal.userId) throw AppError.notFound();
    return this.render(principal, principal.userId, query);
  }

  private async render(
    principal: Principal,
    userId: number,
    query: RawQuery,
  ): Promise<SingleDocument> {
    assertOnlyParameters(query, []);
    const user = await this.users.findById(userId);
    if (!user) throw AppError.notFound();
    const document = await this.jsonApi.single(userRenderer, user, principal);
    return { ...document, meta: { test_mode: principal.testMode } };
  }
}
