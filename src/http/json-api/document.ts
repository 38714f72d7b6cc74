export const JSON_API_MEDIA_TYPE = 'application/vnd.api+json';
export const JSON_API_VERSION = { version: '1.0' } as const;

export interface ResourceIdentifier {
  type: string;
  id: string;
}

export interface RelationshipObject {
  links: { related: string; self: string };
  data?: ResourceIdentifier | ResourceIdentifier[] | null;
}

export interface ResourceObject {
  type: string;
  id: string;
  attributes: Record<string, unknown>;
  relationships?: Record<string, RelationshipObject>;
  links: { self: string };
}

export interface PageMeta {
  currentPage: number;
  from: number;
  lastPage: number;
  perPage: number;
  to: number;
  total: number;
}

export interface SingleDocument {
  jsonapi: typeof JSON_API_VERSION;
  links: { self: string };
  data: ResourceObject;
  included?: ResourceObject[];
  meta?: Record<string, unknown>;
}

export interface ListDocument {
  meta: { page: PageMeta };
  jsonapi: typeof JSON_API_VERSION;
  links: { first: string; last: string; next?: string; prev?: string };
  data: ResourceObject[];
  included?: ResourceObject[];
}

/** The answer to a batch write (an extension): the records written. */
export interface BatchDocument {
  jsonapi: typeof JSON_API_VERSION;
  data: ResourceObject[];
}

/** A list page asked for by cursor (`page[after]`/`page[before]`). */
export interface CursorListDocument {
  meta: { page: { perPage: number; total: number } };
  jsonapi: typeof JSON_API_VERSION;
  links: { first: string; last: string; next?: string; prev?: string };
  data: ResourceObject[];
  included?: ResourceObject[];
}

export interface LinkageDocument {
  jsonapi: typeof JSON_API_VERSION;
  links: { self: string; related: string };
  data: ResourceIdentifier | ResourceIdentifier[] | null;
}

/** A document that carries only `meta` (current usage, invoice links). */
export interface MetaDocument {
  jsonapi: typeof JSON_API_VERSION;
  meta: Record<string, unknown>;
}

export function metaDocument(meta: Record<string, unknown>): MetaDocument {
  return { jsonapi: JSON_API_VERSION, meta };
}
