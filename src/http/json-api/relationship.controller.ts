import { Controller, Get, Param, Query } from '@nestjs/common';
import type { RawQuery } from '../../common/list-query';
import type { Principal } from '../../common/principal';
import { CurrentPrincipal } from '../auth/principal';
import { RelationshipDocuments } from './relationship-documents';

/**
 * The `related` and `self` links every relationship advertises, served for
 * every registered resource type. Routes with a literal last segment (such
 * as /subscription-items/:id/current-usage) take precedence in the router.
 */
@Controller('v1/:type/:id')
export class RelationshipController {
  constructor(private readonly documents: RelationshipDocuments) {}

  @Get('relationships/:relationship')
  linkage(
    @CurrentPrincipal() principal: Principal,
    @Param('type') type: string,
    @Param('id') id: string,
    @Param('relationship') relationship: string,
  ) {
    return this.documents.linkage(type, id, relationship, principal);
  }

  @Get(':relationship')
  related(
    @CurrentPrincipal() principal: Principal,
    @Param('type') type: string,
    @Param('id') id: string,
    @Param('relationship') relationship: string,
    @Query() query: RawQuery,
  ) {
    return this.documents.related(type, id, relationship, principal, query);
  }
}
