import { Provider, Type } from '@nestjs/common';
import { parseIntegerId } from '../../common/ids';
import {
  FilterValue,
  ListQuery,
  Page,
  pageOrNothing,
} from '../../common/list-query';
import { Principal } from '../../common/principal';
import { Reader } from '../../common/reader';
import { JsonApi } from './json-api.service';
import { ListSpec } from './list-query';

/** A to-one relationship: the related record's id is on this record. */
export interface ToOne<T> {
  kind: 'one';
  type: string;
  id: (record: T) => number | string | null;
}

/**
 * A to-many relationship: the related records are the target list filtered
 * by `filter` = this record's id (e.g. a store's products are the products
 * list with `store_id` = the store's id).
 */
export interface ToMany {
  kind: 'many';
  type: string;
  filter: string;
}

/**
 * A to-many relationship whose ids the record itself carries (a link table
 * loaded with it, e.g. the variants a discount is limited to).
 */
export interface ToManyIds<T> {
  kind: 'ids';
  type: string;
  ids: (record: T) => (number | string)[];
}

export type Relationship<T> = ToOne<T> | ToMany | ToManyIds<T>;

/** How records of one type render as JSON:API resource objects. */
export interface ResourceRenderer<T> {
  readonly type: string;
  readonly relationships: Record<string, Relationship<T>>;
  id(record: T): string;
  /** Pure and synchronous: everything it needs is loaded by the reader. */
  attributes(record: T): Record<string, unknown>;
}

/**
 * One JSON:API resource type's serializer: how its records render and how
 * its lists are queried. It only renders; its records are found by the
 * reader registered with it (`registerResources`).
 */
export interface ResourceType<T> extends ResourceRenderer<T> {
  readonly list: ListSpec;
}

// The registry stores resources of every record type side by side.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyResourceType = ResourceType<any>;

/**
 * A registered type's reader as the JSON:API layer calls it: with ids as
 * they come in a path or a relationship (strings). An id that cannot be one
 * of the type's ids is a missing record and never reaches the reader.
 */
export class Finders<T> {
  constructor(
    private readonly reader: Reader<T, unknown>,
    private readonly parseId: (raw: string) => unknown,
  ) {}

  async findOne(principal: Principal, id: string): Promise<T | null> {
    const parsed = this.parseId(id);
    if (parsed === null) return null;
    if (this.reader.findOne) return this.reader.findOne(principal, parsed);
    const [record] = await this.reader.findMany(principal, [parsed]);
    return record ?? null;
  }

  findMany(principal: Principal, ids: string[]): Promise<T[]> {
    return this.reader.findMany(
      principal,
      ids.map(this.parseId).filter((id) => id !== null),
    );
  }

  findPage(principal: Principal, query: ListQuery): Promise<Page<T>> {
    return pageOrNothing(query, () => this.reader.findPage(principal, query));
  }

  findByFilter(
    principal: Principal,
    filter: string,
    values: FilterValue[],
  ): Promise<T[]> {
    if (!this.reader.findByFilter) {
      throw new Error(`This resource cannot be listed by ${filter}`);
    }
    return this.reader.findByFilter(principal, filter, values);
  }
}

/** One resource type as a module registers it: its serializer and its reader. */
export interface ResourceRegistration<T, Id = number> {
  type: string;
  serializer: Type<ResourceType<T>>;
  reader: Type<Reader<T, Id>>;
  /** Parses an id from a path or a linkage; null when it cannot be one. Default: integer ids. */
  parseId?: (raw: string) => Id | null;
}

/**
 * The provider a module lists to register its resource types with the
 * JSON:API registry, each naming its serializer and its reader:
 *
 *     registerResources({ type: 'orders', serializer: OrderSerializer, reader: OrderReader })
 */
export function registerResources(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  ...registrations: ResourceRegistration<any, any>[]
): Provider {
  return {
    provide: Symbol(`JSON:API ${registrations.map((r) => r.type).join(', ')}`),
    inject: [
      JsonApi,
      ...registrations.flatMap((r) => [r.serializer, r.reader]),
    ],
    useFactory: (jsonApi: JsonApi, ...instances: unknown[]) => {
      registrations.forEach((registration, index) => {
        const serializer = instances[2 * index] as AnyResourceType;
        if (serializer.type !== registration.type)
          throw new Error(
            `${registration.serializer.name} renders ${serializer.type}, registered as ${registration.type}`,
          );
        jsonApi.register(
          serializer,
          new Finders(
            instances[2 * index + 1] as Reader<unknown, unknown>,
            registration.parseId ?? parseIntegerId,
          ),
        );
      });
      return registrations.map((r) => r.type);
    },
  };
}
