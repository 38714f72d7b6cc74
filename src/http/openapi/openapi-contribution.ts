import type {
  ParameterObject,
  RequestBodyObject,
  ResponseObject,
  ReferenceObject,
  SchemaObject,
} from '@nestjs/swagger';

/**
 * What one resource type looks like on the wire, declared next to its
 * serializer in a `*.openapi.ts` file. Relationships, filters, sorts and
 * includes come from the `ResourceType` registered with `JsonApi`; only the
 * attributes (which the serializer computes) are spelled out here.
 */
export interface ResourceDoc {
  type: string;
  description?: string;
  /** Every attribute, in response order; all are required and no other is allowed. */
  attributes: Record<string, SchemaObject>;
  /** `meta` that every single document of this type carries (users: `test_mode`). */
  meta?: SchemaObject;
  /** Relationships of a type that is rendered but not registered (users has none). */
  relationships?: string[];
}

/**
 * The documentation of one operation the generic JSON:API rules do not
 * describe (a License API call, a hosted page, an action route). It replaces
 * what the generator would infer; `responses` are complete.
 */
export interface OperationDoc {
  summary: string;
  description?: string;
  tags?: string[];
  parameters?: (ParameterObject | ReferenceObject)[];
  /** Adds the list parameters (page, sort, filters, include) of this resource type. */
  listParametersOf?: string;
  requestBody?: RequestBodyObject;
  responses: Record<string, ResponseObject | ReferenceObject>;
  /** Public routes (no API key); inferred from `@Public()` when omitted. */
  security?: Record<string, string[]>[];
}

/**
 * One module's part of the document. Operation keys are `METHOD /path` with
 * OpenAPI path templates, e.g. `POST /v1/licenses/activate`.
 */
export interface OpenApiContribution {
  resources?: ResourceDoc[];
  operations?: Record<string, OperationDoc>;
  /** Operations that extend the generic ones (summaries of action routes, extra query parameters and responses). */
  notes?: Record<
    string,
    Partial<
      Pick<OperationDoc, 'summary' | 'description' | 'parameters' | 'responses'>
    >
  >;
}

export const OPENAPI_CONTRIBUTIONS = Symbol('OPENAPI_CONTRIBUTIONS');

/** Thrown when a route cannot be documented: CI fails until it is. */
export class OpenApiDrift extends Error {}

/** Every module's contributions in one place; a resource or operation documented twice is drift. */
export function collectContributions(contributions: OpenApiContribution[]) {
  const resources = new Map<string, ResourceDoc>();
  const operations = new Map<string, OperationDoc>();
  const notes = new Map<
    string,
    NonNullable<OpenApiContribution['notes']>[string]
  >();
  for (const contribution of contributions) {
    for (const doc of contribution.resources ?? []) {
      if (resources.has(doc.type))
        throw new OpenApiDrift(`Resource ${doc.type} is documented twice`);
      resources.set(doc.type, doc);
    }
    for (const [key, operation] of Object.entries(
      contribution.operations ?? {},
    )) {
      if (operations.has(key))
        throw new OpenApiDrift(`Operation ${key} is documented twice`);
      operations.set(key, operation);
    }
    for (const [key, note] of Object.entries(contribution.notes ?? {})) {
      notes.set(key, note);
    }
  }
  return { resources, operations, notes };
}
