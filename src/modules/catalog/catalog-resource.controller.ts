import {
  Controller,
  Get,
  HttpCode,
  Inject,
  Param,
  Patch,
  Post,
  Query,
  Type,
} from '@nestjs/common';
import { parseIntegerId } from '../../common/ids';
import type { RawQuery } from '../../common/list-query';
import type { Principal } from '../../common/principal';
import type { WriteDocument } from '../../common/write-document';
import { CurrentPrincipal } from '../../http/auth/principal';
import { IntegerIdPipe } from '../../http/json-api/integer-id.pipe';
import { JsonApi } from '../../http/json-api/json-api.service';
import type { ResourceType } from '../../http/json-api/resource';
import {
  JsonApiBody,
  type WriteDocumentRules,
} from '../../http/json-api/write-document';

/** What products and variants write through: a record under a parent, and changes to one. */
interface CatalogWriter<T, Create, Update> {
  create(
    principal: Principal,
    parentId: number | null,
    attributes: Create,
  ): Promise<T>;
  update(principal: Principal, id: number, changes: Update): Promise<T>;
}

/**
 * The routes products and variants share, which differ only in their type,
 * their parent (a product's store, a variant's product) and their bodies:
 * list, read, create under the parent, update.
 */
export function catalogResourceController<
  T,
  Create extends object,
  Update extends object,
>(resource: {
  path: string;
  serializer: Type<ResourceType<T>>;
  service: Type<CatalogWriter<T, Create, Update>>;
  /** The create body's required to-one relationship naming the parent. */
  parent: string;
  create: WriteDocumentRules<Create>;
  update: WriteDocumentRules<Update>;
}) {
  @Controller(resource.path)
  class CatalogResourceController {
    constructor(
      @Inject(resource.serializer) readonly serializer: ResourceType<T>,
      @Inject(resource.service)
      readonly service: CatalogWriter<T, Create, Update>,
      readonly jsonApi: JsonApi,
    ) {}

    @Get()
    list(@CurrentPrincipal() principal: Principal, @Query() query: RawQuery) {
      return this.jsonApi.readList(this.serializer, principal, query);
    }

    @Get(':id')
    one(
      @CurrentPrincipal() principal: Principal,
      @Param('id', IntegerIdPipe) id: number,
      @Query() query: RawQuery,
    ) {
      return this.jsonApi.readOne(this.serializer, principal, id, query);
    }

    @Post()
    @HttpCode(201)
    async create(
      @CurrentPrincipal() principal: Principal,
      @JsonApiBody(resource.create) body: WriteDocument<Create>,
    ) {
      const record = await this.service.create(
        principal,
        parseIntegerId(String(body.relationships[resource.parent])),
        body.attributes,
      );
      return this.jsonApi.single(this.serializer, record, principal);
    }

    @Patch(':id')
    async update(
      @CurrentPrincipal() principal: Principal,
      @Param('id', IntegerIdPipe) id: number,
      @JsonApiBody(resource.update) body: WriteDocument<Update>,
    ) {
      const record = await this.service.update(principal, id, body.attributes);
      return this.jsonApi.single(this.serializer, record, principal);
    }
  }
  return CatalogResourceController;
}
