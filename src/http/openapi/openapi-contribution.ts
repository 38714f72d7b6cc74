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
