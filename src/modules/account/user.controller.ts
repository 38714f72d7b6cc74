import { Controller, Get, Param, Query } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import type { RawQuery } from '../../common/list-query';
import type { Principal } from '../../common/principal';
import { CurrentPrincipal } from '../../http/auth/principal';
import { SingleDocument } from '../../http/json-api/document';
import { IntegerIdPipe } from '../../http/json-api/integer-id.pipe';
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
    @Param('id', IntegerIdPipe) id: number,
    @Query() query: RawQuery,
  ) {
    if (id !== principal.userId) throw AppError.notFound();
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
