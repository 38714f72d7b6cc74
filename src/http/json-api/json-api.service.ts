import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import { ListQuery, Page, RawQuery } from '../../common/list-query';
import { Principal } from '../../common/principal';
import type { ResourceObjects } from '../../common/resource-objects';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import {
  BatchDocument,
  CursorListDocument,
  JSON_API_VERSION,
  ListDocument,
  PageMeta,
  RelationshipObject,
  ResourceObject,
  SingleDocument,
} from './document';
import { linkageOf } from './linkage';
import { encodeCursor, parseListQuery } from './list-query';
import type {
  AnyResourceType,
  Finders,
  ResourceRenderer,
  ResourceType,
} from './resource';
import { HttpErrorCodes } from '../errors/http-error-codes';

/** A registered resource type: its serializer and its reader. */
export interface Registered {
  serializer: AnyResourceType;
  finders: Finders<unknown>;
}

/**
 * Builds every JSON:API document Zest sends: single records, pages with their
 * links, included records and relationship linkage. Resource types register
 * here once, each with its serializer and its reader (`registerResources`);
 * nothing else knows the document shape.
 */
@Injectable()
export class JsonApi implements ResourceObjects {
  private readonly types = new Map<string, Registered>();
  private readonly baseUrl: string;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.baseUrl = `${config.http.publicBaseUrl}/v1`;
  }

  register(serializer: AnyResourceType, finders: Finders<unknown>) {
    if (this.types.has(serializer.type)) {
      throw new Error(`Resource type "${serializer.type}" is registered twice`);
    }
    this.types.set(serializer.type, { serializer, finders });
  }

  /** Every registered resource type (the OpenAPI document is built from them). */
  resources(): AnyResourceType[] {
    return [...this.types.values()].map(({ serializer }) => serializer);
  }

  /** The resource object of a record of a registered type (webhook payloads). */
  render(type: string, record: unknown): ResourceObject {
    const registered = this.types.get(type);
    if (!registered)
      throw new Error(`Resource type "${type}" is not registered`);
    return this.resourceObject(registered.serializer, record);
  }

  /** A registered type's serializer and reader; undefined when its module is not loaded. */
  registered(type: string): Registered | undefined {
    return this.types.get(type);
  }

  /** The reader registered with `resource`, called with ids as strings. */
  private finders<T>(resource: ResourceRenderer<T>): Finders<T> {
    const registered = this.types.get(resource.type);
    if (!registered || registered.serializer !== resource)
      throw new Error(`Resource type "${resource.type}" is not registered`);
    return registered.finders as Finders<T>;
  }

  /** GET /v1/{type}: a page of the list, as the query string asks. */
  async readList<T>(
    resource: ResourceType<T>,
    principal: Principal,
    query: RawQuery,
  ): Promise<ListDocument | CursorListDocument> {
    const listQuery = this.parseList(resource, query);
    const page = await this.finders(resource).findPage(principal, listQuery);
    return this.list(resource, page, listQuery, principal);
  }

  /** GET /v1/{type}/{id}: one record (404 when the caller cannot see it), with `include`. */
  async readOne<T>(
    resource: ResourceType<T>,
    principal: Principal,
    id: number | string,
    query: RawQuery,
  ): Promise<SingleDocument> {
    const include = this.parseSingleInclude(resource, query);
    const record = await this.finders(resource).findOne(principal, String(id));
    if (!record) throw AppError.notFound();
    return this.single(resource, record, principal, include);
  }

  parseList<T>(resource: ResourceType<T>, query: RawQuery): ListQuery {
    return parseListQuery(query, resource.list, this.includable(resource));
  }

  /** Relationships whose target module is loaded; the others render links only. */
  private includable<T>(resource: ResourceType<T>): string[] {
    return Object.entries(resource.relationships)
      .filter(([, relationship]) => this.types.has(relationship.type))
      .map(([name]) => name);
  }

  url(path: string): string {
    return `${this.baseUrl}/${path}`;
  }

  private resourceObject<T>(
    resource: ResourceRenderer<T>,
    record: T,
  ): ResourceObject {
    const id = resource.id(record);
    const self = this.url(`${resource.type}/${id}`);
    const relationships: Record<string, RelationshipObject> = {};
    for (const name of Object.keys(resource.relationships)) {
      relationships[name] = {
        links: {
          related: `${self}/${name}`,
          self: `${self}/relationships/${name}`,
        },
      };
    }
    const object: ResourceObject = {
      type: resource.type,
      id,
      attributes: resource.attributes(record),
      relationships,
      links: { self },
    };
    if (Object.keys(relationships).length === 0) delete object.relationships;
    return object;
  }

  /** A single record; `include` needs the caller, whose scope the related records are read in. */
  async single<T>(
    resource: ResourceRenderer<T>,
    record: T,
    principal?: Principal,
    include: string[] = [],
  ): Promise<SingleDocument> {
    const data = this.resourceObject(resource, record);
    const document: SingleDocument = {
      jsonapi: JSON_API_VERSION,
      links: { self: data.links.self },
      data,
    };
    if (include.length > 0) {
      if (!principal) throw new Error('An include is read for a principal');
      document.included = await this.included(
        resource,
        [record],
        [data],
        principal,
        include,
      );
    }
    return document;
  }

  /** A batch write's answer: its records, in the order written. */
  batch<T>(resource: ResourceRenderer<T>, records: T[]): BatchDocument {
    return {
      jsonapi: JSON_API_VERSION,
      data: records.map((record) => this.resourceObject(resource, record)),
    };
  }

  /**
   * A page of records. `path` is the list's path below /v1 (`products`, or a
   * related route such as `stores/1/products`), so links page that same list.
   */
  async list<T>(
    resource: ResourceType<T>,
    page: Page<T>,
    query: ListQuery,
    principal: Principal,
    path: string = resource.type,
  ): Promise<ListDocument | CursorListDocument> {
    const data = page.records.map((record) =>
      this.resourceObject(resource, record),
    );
    const { number, size, cursor } = query.page;
    const lastPage = Math.max(1, Math.ceil(page.total / size));
    if (cursor) {
      return this.withIncluded(
        this.cursorList(resource, page, query, data, path, lastPage),
        resource,
        page.records,
        principal,
        query,
      );
    }
    const from = data.length > 0 ? (number - 1) * size + 1 : 0;
    const meta: PageMeta = {
      currentPage: number,
      from,
      lastPage,
      perPage: size,
      to: data.length > 0 ? from + data.length - 1 : 0,
      total: page.total,
    };
    const link = (pageNumber: number) => this.pageLink(path, pageNumber, query);
    const document: ListDocument = {
      meta: { page: meta },
      jsonapi: JSON_API_VERSION,
      links: { first: link(1), last: link(lastPage) },
      data,
    };
    if (number < lastPage) document.links.next = link(number + 1);
    if (number > 1) document.links.prev = link(Math.min(number - 1, lastPage));
    return this.withIncluded(
      document,
      resource,
      page.records,
      principal,
      query,
    );
  }

  private async withIncluded<T, D extends ListDocument | CursorListDocument>(
    document: D,
    resource: ResourceType<T>,
    records: T[],
    principal: Principal,
    query: ListQuery,
  ): Promise<D> {
    if (query.include.length > 0) {
      document.included = await this.included(
        resource,
        records,
        document.data,
        principal,
        query.include,
      );
    }
    return document;
  }

  /**
   * A page asked for by cursor (`page[after]`/`page[before]`): `meta.page`
   * has the size and the list's total (a cursor page has no number), `next`
   * and `prev` carry the cursors of its last and first records, `first` and
   * `last` are the numbered pages.
   */
  private cursorList<T>(
    resource: ResourceType<T>,
    page: Page<T>,
    query: ListQuery,
    data: ResourceObject[],
    path: string,
    lastPage: number,
  ): CursorListDocument {
    const cursor = query.page.cursor!;
    const numbered = (n: number) => this.pageLink(path, n, query);
    const document: CursorListDocument = {
      meta: { page: { perPage: query.page.size, total: page.total } },
      jsonapi: JSON_API_VERSION,
      links: { first: numbered(1), last: numbered(lastPage) },
      data,
    };
    if (data.length === 0) return document;
    const after = cursor.direction === 'after';
    const nextExists = after ? page.more === true : true;
    const prevExists = after ? cursor.id !== null : page.more === true;
    const at = (name: 'page[after]' | 'page[before]', record: T) =>
      this.pageLink(path, null, query, [
        name,
        encodeCursor(resource.id(record)),
      ]);
    if (nextExists)
      document.links.next = at('page[after]', page.records.at(-1)!);
    if (prevExists) document.links.prev = at('page[before]', page.records[0]);
    return document;
  }

  /** `include` on a single-record read; nothing else is accepted there. */
  parseSingleInclude<T>(resource: ResourceType<T>, query: RawQuery): string[] {
    return this.parseList(resource, pickInclude(query)).include;
  }

  /**
   * Loads each included relationship with one query for all parents (no N+1),
   * adds linkage `data` to the parents' relationship objects, and returns the
   * de-duplicated included records.
   */
  private async included<T>(
    resource: ResourceRenderer<T>,
    records: T[],
    objects: ResourceObject[],
    principal: Principal,
    include: string[],
  ): Promise<ResourceObject[]> {
    const included = new Map<string, ResourceObject>();
    const primary = new Set(objects.map((o) => `${o.type}:${o.id}`));
    for (const name of include) {
      const definition = resource.relationships[name];
      const registered = this.types.get(definition.type);
      if (!registered)
        throw new Error(
          `Relationship ${resource.type}.${name} names unregistered type ${definition.type}`,
        );
      const { serializer: target, finders } = registered;
      let related: unknown[];
      if (definition.kind === 'one' || definition.kind === 'ids') {
        const ids = [
          ...new Set(
            records
              .flatMap((record) =>
                definition.kind === 'one'
                  ? [definition.id(record)]
                  : definition.ids(record),
              )
              .filter((v) => v !== null)
              .map(String),
          ),
        ];
        related = ids.length > 0 ? await finders.findMany(principal, ids) : [];
      } else {
        const parentIds = records.map((r) => Number(resource.id(r)));
        related =
          parentIds.length > 0
            ? await finders.findByFilter(
                principal,
                definition.filter,
                parentIds,
              )
            : [];
      }
      const relatedObjects = related.map((record) =>
        this.resourceObject(target, record),
      );
      const linkage = linkageOf(resource, definition, relatedObjects);
      records.forEach((record, index) => {
        objects[index].relationships![name].data = linkage(record);
      });
      for (const object of relatedObjects) {
        const key = `${object.type}:${object.id}`;
        if (!primary.has(key) && !included.has(key)) included.set(key, object);
      }
    }
    return [...included.values()];
  }

  private pageLink(
    path: string,
    pageNumber: number | null,
    query: ListQuery,
    cursor?: ['page[after]' | 'page[before]', string],
  ): string {
    const params = new URLSearchParams();
    if (cursor) params.set(cursor[0], cursor[1]);
    else params.set('page[number]', String(pageNumber));
    params.set('page[size]', String(query.page.size));
    for (const [name, value] of Object.entries({
      ...query.filters,
      ...query.unmatchable,
    })) {
      params.set(`filter[${name}]`, String(value));
    }
    params.set('sort', query.sortParam);
    return `${this.url(path)}?${params.toString()}`;
  }
}

function pickInclude(query: RawQuery): RawQuery {
  for (const name of Object.keys(query)) {
    if (name !== 'include') {
      throw AppError.badRequest(
        `Unknown query parameter "${name}".`,
        { parameter: name },
        HttpErrorCodes.unknownParameter,
      );
    }
  }
  return { include: query.include };
}
