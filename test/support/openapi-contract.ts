import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import FindMyWay from 'find-my-way';
import type {
  OpenAPIObject,
  OperationObject,
  ReferenceObject,
  ResponseObject,
} from '@nestjs/swagger';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
type Method = (typeof METHODS)[number];

// ajv-formats is CommonJS with a default export; ESM and CJS builds see it differently.
const addFormats = ((addFormatsModule as unknown as { default?: unknown })
  .default ?? addFormatsModule) as (ajv: Ajv2020) => void;

/** Where the document's components live for ajv: refs are rewritten to this id. */
export const SCHEMAS_ROOT = 'https://zest.invalid/openapi.json';

function rewriteRefs<T>(value: T): T {
  return JSON.parse(
    JSON.stringify(value).replace(
      /"\$ref":"#\/components\/schemas\//g,
      `"$ref":"${SCHEMAS_ROOT}#/$defs/`,
    ),
  ) as T;
}

export interface ObservedResponse {
  method: string;
  /** Path and query as requested. */
  url: string;
  status: number;
  contentType: string | undefined;
  body: string | undefined;
}

/**
 * A JSON Schema validator for the document's schemas (2020-12, as OpenAPI
 * 3.1 uses). Each component is compiled once, on first use, and called by
 * every schema that refers to it: inlining it instead compiled the whole
 * tree under every reference again (11 s for the lint's 93 components).
 */
export function schemaValidator(document: OpenAPIObject): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors: true,
    strict: true,
    allowUnionTypes: true,
    inlineRefs: false,
  });
  addFormats(ajv);
  ajv.addFormat('binary', true);
  ajv.addSchema({
    $id: SCHEMAS_ROOT,
    $defs: rewriteRefs(document.components?.schemas ?? {}),
  });
  return ajv;
}

/**
 * Checks responses against the OpenAPI document: the route and the status
 * must be documented, the media type must be one the response declares, and
 * a JSON body must validate against its schema. Returns what is wrong, or
 * null.
 */
export class ResponseContract {
  private readonly ajv: Ajv2020;
  private readonly router = FindMyWay({ ignoreTrailingSlash: true });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly document: OpenAPIObject) {
    this.ajv = schemaValidator(document);
    for (const [path, item] of Object.entries(document.paths)) {
      const route = path.replace(/\{([^}]+)\}/g, ':$1');
      for (const method of METHODS) {
        const operation = item[method.toLowerCase() as Lowercase<Method>];
        if (operation)
          this.router.on(method, route, () => undefined, {
            path,
            operation,
          });
      }
    }
  }

  /** The documented operation serving this request, if any. */
  operation(
    method: string,
    url: string,
  ): { path: string; operation: OperationObject } | null {
    if (!(METHODS as readonly string[]).includes(method)) return null;
    const found = this.router.find(method as Method, url.split('?')[0]);
    return (
      (found?.store as { path: string; operation: OperationObject } | null) ??
      null
    );
  }

  /** Whether any method is documented at this path (a 405 then answers with an error document). */
  knowsPath(url: string): boolean {
    const path = url.split('?')[0];
    return METHODS.some((method) => this.router.find(method, path) !== null);
  }

  check(response: ObservedResponse): string | null {
    const where = `${response.method} ${response.url} → ${response.status}`;
    const mediaType = response.contentType?.split(';')[0].trim().toLowerCase();
    const found = this.operation(response.method, response.url);
    if (!found) {
      // Unknown paths and other methods on a known path answer error documents.
      if (mediaType === 'application/vnd.api+json' && response.status >= 400) {
        return this.validate(
          `${SCHEMAS_ROOT}#/$defs/ErrorDocument`,
          { $ref: '#/components/schemas/ErrorDocument' },
          response,
          where,
        );
      }
      return null;
    }
    const { path, operation } = found;
    const declared =
      operation.responses[String(response.status)] ??
      operation.responses.default;
    if (!declared) {
      return `${where}: status ${response.status} is not documented for ${response.method} ${path}`;
    }
    const definition = this.resolve(declared);
    const content = definition.content ?? {};
    const body = response.body ?? '';
    if (Object.keys(content).length === 0) {
      return body === '' || response.status === 303
        ? null
        : `${where}: documented without a body, got ${mediaType}`;
    }
    if (body === '' && response.status === 204) return null;
    const media = mediaType
      ? (content[mediaType] ??
        content[`${mediaType.split('/')[0]}/*`] ??
        content['*/*'])
      : undefined;
    if (!media) {
      return `${where}: media type ${mediaType ?? '(none)'} is not documented (${Object.keys(content).join(', ')})`;
    }
    if (!mediaType!.includes('json') || !media.schema) return null;
    const key = `${response.method} ${path} ${response.status} ${mediaType}`;
    return this.validate(key, media.schema, response, where);
  }

  private validate(
    key: string,
    schema: unknown,
    response: ObservedResponse,
    where: string,
  ): string | null {
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(rewriteRefs(schema as object));
      this.compiled.set(key, validate);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(response.body ?? '');
    } catch {
      return `${where}: the body is not JSON`;
    }
    if (validate(parsed)) return null;
    const errors = (validate.errors ?? [])
      .slice(0, 5)
      .map(
        (error) =>
          `${error.instancePath || '/'} ${error.message ?? ''} ${JSON.stringify(error.params)}`,
      )
      .join('; ');
    return `${where}: body does not match the document: ${errors}`;
  }

  private resolve(response: ResponseObject | ReferenceObject): ResponseObject {
    if (!('$ref' in response)) return response;
    const name = response.$ref.replace('#/components/responses/', '');
    const resolved = this.document.components?.responses?.[name];
    if (!resolved) throw new Error(`Unresolved ${response.$ref}`);
    return this.resolve(resolved);
  }
}

/** Mismatches seen since the last check; the e2e setup fails the running test on any. */
const violations: string[] = [];

export function takeContractViolations(): string[] {
  return violations.splice(0);
}

/** Routes that exist only in tests (`TestRoutesModule`): not part of the document. */
const TEST_ONLY = [/^\/v1\/test-/, /^\/v1\/licenses\/test-/];

/**
 * Checks every response the app sends against its own OpenAPI document (as
 * served at /v1/openapi.json), recording mismatches for the e2e setup to
 * fail the test with.
 */
export function checkResponsesAgainstDocument(
  fastify: FastifyInstance,
  document: () => OpenAPIObject,
) {
  let contract: ResponseContract | undefined;
  fastify.addHook('onSend', async (request, reply, payload) => {
    const path = request.url.split('?')[0];
    if (TEST_ONLY.some((pattern) => pattern.test(path))) return payload;
    try {
      contract ??= new ResponseContract(document());
      const routeUrl = request.routeOptions.url;
      // Routes with the resource type as a parameter serve only the types
      // documented for them; any other type is an error document.
      if (
        routeUrl !== undefined &&
        !routeUrl.startsWith('/v1/:') &&
        !contract.operation(request.method, request.url) &&
        !['/docs', '/docs/:asset'].includes(routeUrl) &&
        request.method !== 'OPTIONS' &&
        request.method !== 'HEAD'
      ) {
        violations.push(
          `${request.method} ${request.url}: route ${routeUrl} is served but not documented`,
        );
        return payload;
      }
      const problem = contract.check({
        method: request.method,
        url: request.url,
        status: reply.statusCode,
        contentType: reply.getHeader('content-type') as string | undefined,
        body:
          typeof payload === 'string'
            ? payload
            : Buffer.isBuffer(payload)
              ? payload.toString('utf8')
              : undefined,
      });
      if (problem) violations.push(problem);
    } catch (error) {
      violations.push(`contract check failed: ${(error as Error).message}`);
    }
    return payload;
  });
}
