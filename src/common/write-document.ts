/**
 * A create or update request as the domain receives it: the attributes,
 * validated, and each relationship's related id (or ids for to-many). The
 * HTTP layer parses the JSON:API body into it (http/json-api/write-document.ts).
 */
export interface WriteDocument<A> {
  id?: string;
  attributes: A;
  /** Relationship name → related id (or ids for to-many). */
  relationships: Record<string, string | string[] | undefined>;
}
