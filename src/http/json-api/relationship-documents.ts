import { Injectable } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import type { RawQuery } from '../../common/list-query';
import type { Principal } from '../../common/principal';
import {
  CursorListDocument,
  JSON_API_VERSION,
  LinkageDocument,
  ListDocument,
  SingleDocument,
} from './document';
import { JsonApi } from './json-api.service';

/**
 * The documents behind the `related` and `self` links every relationship
 * advertises, for every registered resource type: read in the caller's scope
 * through the target type's registered reader.
 */
@Injectable()
export class RelationshipDocuments {
  constructor(private readonly jsonApi: JsonApi) {}

  /** GET /v1/{type}/{id}/{relationship}: the related record or records. */
  async related(
    type: string,
    id: string,
    relationship: string,
    principal: Principal,
    query: RawQuery,
  ): Promise<
    | SingleDocument
    | ListDocument
    | CursorListDocument
    | { jsonapi: typeof JSON_API_VERSION; links: { self: string }; data: null }
  > {
    const { parent, definition, target, finders } = await this.resolve(
      type,
      id,
      relationship,
      principal,
    );
    const path = `${type}/${id}/${relationship}`;
    if (definition.kind === 'one') {
      const include = this.jsonApi.parseSingleInclude(target, query);
      const relatedId = definition.id(parent);
      const record =
        relatedId === null
          ? null
          : await finders.findOne(principal, String(relatedId));
      if (!record)
        return {
          jsonapi: JSON_API_VERSION,
          links: { self: this.jsonApi.url(path) },
          data: null,
        };
      const document = await this.jsonApi.single(
        target,
        record,
        principal,
        include,
      );
      document.links.self = this.jsonApi.url(path);
      return document;
    }
    const listQuery = this.jsonApi.parseList(target, query);
    if (definition.kind === 'ids') {
      const all = await finders.findMany(
        principal,
        definition.ids(parent).map(String),
      );
      const start = (listQuery.page.number - 1) * listQuery.page.size;
      const records = all.slice(start, start + listQuery.page.size);
      return this.jsonApi.list(
        target,
        { records, total: all.length },
        listQuery,
        principal,
        path,
      );
    }
    listQuery.filters[definition.filter] = Number(id);
    const page = await finders.findPage(principal, listQuery);
    delete listQuery.filters[definition.filter];
    return this.jsonApi.list(target, page, listQuery, principal, path);
  }

  /** GET /v1/{type}/{id}/relationships/{relationship}: linkage only. */
  async linkage(
    type: string,
    id: string,
    relationship: string,
    principal: Principal,
  ): Promise<LinkageDocument> {
    const { parent, definition, target, finders } = await this.resolve(
      type,
      id,
      relationship,
      principal,
    );
    const links = {
      self: this.jsonApi.url(`${type}/${id}/relationships/${relationship}`),
      related: this.jsonApi.url(`${type}/${id}/${relationship}`),
    };
    if (definition.kind === 'one') {
      const relatedId = definition.id(parent);
      const record =
        relatedId === null
          ? null
          : await finders.findOne(principal, String(relatedId));
      return {
        jsonapi: JSON_API_VERSION,
        links,
        data: record ? { type: target.type, id: target.id(record) } : null,
      };
    }
    const records =
      definition.kind === 'ids'
        ? await finders.findMany(principal, definition.ids(parent).map(String))
        : await finders.findByFilter(principal, definition.filter, [
            Number(id),
          ]);
    return {
      jsonapi: JSON_API_VERSION,
      links,
      data: records.map((record) => ({
        type: target.type,
        id: target.id(record),
      })),
    };
  }

  private async resolve(
    type: string,
    id: string,
    relationship: string,
    principal: Principal,
  ) {
    const resource = this.jsonApi.registered(type);
    const definition = resource?.serializer.relationships[relationship];
    if (!resource || !definition)
      throw AppError.notFound('The requested resource does not exist.');
    const parent = await resource.finders.findOne(principal, id);
    if (!parent) throw AppError.notFound();
    // A relationship to a type whose module is not loaded still renders its
    // links; following them finds nothing rather than failing.
    const target = this.jsonApi.registered(definition.type);
    if (!target)
      throw AppError.notFound('The requested resource does not exist.');
    return {
      parent,
      definition,
      target: target.serializer,
      finders: target.finders,
    };
  }
}
