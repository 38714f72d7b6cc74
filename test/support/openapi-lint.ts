import type { OpenAPIObject } from '@nestjs/swagger';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { RouteTable } from '../../src/http/json-api/route-table';
import { SCHEMAS_ROOT, schemaValidator } from './openapi-contract';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

const object = (
  properties: Record<string, object>,
  required: string[] = [],
  extra: object = {},
) => ({
  type: 'object',
  properties,
  required,
  // Specification extensions (`x-…`) are allowed anywhere, as OpenAPI says.
  patternProperties: { '^x-': {} },
  additionalProperties: false,
  ...extra,
});

const reference = object(
  {
    $ref: { type: 'string' },
    summary: { type: 'string' },
    description: { type: 'string' },
  },
  ['$ref'],
);
const schemaSlot = { type: ['object', 'boolean'] };
const orRef = (schema: object) => ({ anyOf: [reference, schema] });
const media = object({
  schema: schemaSlot,
  example: {},
  examples: { type: 'object' },
});
const content = {
  type: 'object',
  additionalProperties: media,
  propertyNames: { pattern: '^([a-z]+/[a-z0-9.+*-]+|\\*/\\*)$' },
};
const header = object({
  description: { type: 'string' },
  required: { type: 'boolean' },
  schema: schemaSlot,
});
const parameter = object(
  {
    name: { type: 'string', minLength: 1 },
    in: { enum: ['query', 'header', 'path', 'cookie'] },
    description: { type: 'string' },
    required: { type: 'boolean' },
    deprecated: { type: 'boolean' },
    schema: schemaSlot,
    example: {},
  },
  ['name', 'in', 'schema'],
  {
    // Path parameters are always required.
    anyOf: [
      { properties: { in: { not: { const: 'path' } } } },
      { properties: { required: { const: true } }, required: ['required'] },
    ],
  },
);
const response = object(
  {
    description: { type: 'string' },
    headers: { type: 'object', additionalProperties: orRef(header) },
    content,
  },
  ['description'],
);
const operation = object(
  {
    tags: { type: 'array', items: { type: 'string' } },
    summary: { type: 'string', minLength: 1 },
    description: { type: 'string' },
    operationId: { type: 'string', minLength: 1 },
    parameters: { type: 'array', items: orRef(parameter) },
    requestBody: orRef(
      object(
        {
          description: { type: 'string' },
          required: { type: 'boolean' },
          content,
        },
        ['content'],
      ),
    ),
    responses: {
      type: 'object',
      minProperties: 1,
      propertyNames: { pattern: '^([1-5]\\d\\d|default)$' },
      additionalProperties: orRef(response),
    },
    security: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: { type: 'array', items: { type: 'string' } },
      },
    },
    deprecated: { type: 'boolean' },
  },
  ['operationId', 'summary', 'responses'],
);

/**
 * The structure of an OpenAPI 3.1 document, as far as Zest uses it (written
 * from the specification's Document, Path Item, Operation, Parameter,
 * Request Body, Response, Media Type and Components objects). Stricter than
 * the specification where Zest chose to be: every operation has an id and a
 * summary, every path parameter is required.
 */
export const OPENAPI_31_STRUCTURE = object(
  {
    openapi: { type: 'string', pattern: '^3\\.1\\.\\d+$' },
    info: object(
      {
        title: { type: 'string' },
        description: { type: 'string' },
        version: { type: 'string' },
        contact: {},
        license: {},
      },
      ['title', 'version'],
    ),
    servers: {
      type: 'array',
      items: object(
        {
          url: { type: 'string' },
          description: { type: 'string' },
          variables: {},
        },
        ['url'],
      ),
    },
    security: { type: 'array' },
    tags: {
      type: 'array',
      items: object(
        { name: { type: 'string' }, description: { type: 'string' } },
        ['name'],
      ),
    },
    paths: {
      type: 'object',
      propertyNames: { pattern: '^/' },
      additionalProperties: object(
        Object.fromEntries(METHODS.map((m) => [m, operation])),
      ),
    },
    components: object({
      schemas: { type: 'object', additionalProperties: schemaSlot },
      responses: { type: 'object', additionalProperties: orRef(response) },
      parameters: { type: 'object', additionalProperties: orRef(parameter) },
      headers: { type: 'object', additionalProperties: orRef(header) },
      securitySchemes: {
        type: 'object',
        additionalProperties: object(
          {
            type: {
              enum: ['http', 'apiKey', 'oauth2', 'openIdConnect', 'mutualTLS'],
            },
            scheme: { type: 'string' },
            bearerFormat: { type: 'string' },
            description: { type: 'string' },
            name: { type: 'string' },
            in: { type: 'string' },
          },
          ['type'],
        ),
      },
    }),
  },
  ['openapi', 'info', 'paths'],
);

function walk(
  value: unknown,
  visit: (node: Record<string, unknown>, pointer: string) => void,
  pointer = '',
) {
  if (Array.isArray(value))
    value.forEach((item, i) => walk(item, visit, `${pointer}/${i}`));
  else if (value && typeof value === 'object') {
    visit(value as Record<string, unknown>, pointer);
    for (const [key, child] of Object.entries(value))
      walk(
        child,
        visit,
        `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`,
      );
  }
}

function resolvePointer(document: unknown, pointer: string): unknown {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>(
      (node, key) =>
        node && typeof node === 'object'
          ? (node as Record<string, unknown>)[key]
          : undefined,
      document,
    );
}

/** Every Schema Object of the document, with where it is. */
function schemaObjects(document: OpenAPIObject): [string, unknown][] {
  const found: [string, unknown][] = Object.entries(
    document.components?.schemas ?? {},
  ).map(([name, schema]) => [`#/components/schemas/${name}`, schema]);
  walk(document.paths, (node, pointer) => {
    if ('schema' in node && typeof node.schema === 'object')
      found.push([`#/paths${pointer}/schema`, node.schema]);
  });
  walk(document.components?.responses, (node, pointer) => {
    if ('schema' in node && typeof node.schema === 'object')
      found.push([`#/components/responses${pointer}/schema`, node.schema]);
  });
  return found;
}

/**
 * Lints the OpenAPI document: its structure, every schema against the JSON
 * Schema 2020-12 meta-schema and compiled in ajv's strict mode, every $ref,
 * unique operation ids, declared path parameters, and the routes: every
 * route the server serves under /v1 (and every public page) is documented,
 * and every documented operation is served. Returns the problems found.
 */
export function lintOpenApi(
  document: OpenAPIObject,
  routes: RouteTable,
): string[] {
  const problems: string[] = [];
  const structure = new Ajv2020({
    allErrors: true,
    strict: true,
    allowUnionTypes: true,
  });
  if (!structure.validate(OPENAPI_31_STRUCTURE, document)) {
    for (const error of structure.errors ?? [])
      problems.push(
        `structure: ${error.instancePath} ${error.message} ${JSON.stringify(error.params)}`,
      );
  }

  walk(document, (node, pointer) => {
    if (typeof node.$ref !== 'string') return;
    if (
      !node.$ref.startsWith('#/') ||
      resolvePointer(document, node.$ref.slice(1)) === undefined
    )
      problems.push(`${pointer}: $ref ${node.$ref} does not resolve`);
  });

  const meta = new Ajv2020({ strict: false });
  const strict = schemaValidator(document);
  for (const [where, schema] of schemaObjects(document)) {
    if (!meta.validateSchema(schema as object))
      problems.push(
        `${where}: not a JSON Schema 2020-12 schema: ${meta.errorsText(meta.errors)}`,
      );
    // A component is compiled where the validator holds it, once; the
    // other schemas call the components they refer to.
    const component = /^#\/components\/schemas\/(.+)$/.exec(where);
    try {
      strict.compile(
        component
          ? { $ref: `${SCHEMAS_ROOT}#/$defs/${component[1]}` }
          : (JSON.parse(
              JSON.stringify(schema).replace(
                /"\$ref":"#\/components\/schemas\//g,
                `"$ref":"${SCHEMAS_ROOT}#/$defs/`,
              ),
            ) as object),
      );
    } catch (error) {
      problems.push(`${where}: ${(error as Error).message}`);
    }
  }

  const operationIds = new Set<string>();
  for (const [path, item] of Object.entries(document.paths)) {
    const templated = [...path.matchAll(/\{([^}]+)\}/g)].map(
      ([, name]) => name,
    );
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const where = `${method.toUpperCase()} ${path}`;
      if (operation.operationId) {
        if (operationIds.has(operation.operationId))
          problems.push(
            `${where}: operationId ${operation.operationId} is used twice`,
          );
        operationIds.add(operation.operationId);
      }
      const declared = (operation.parameters ?? [])
        .map(
          (p) =>
            ('$ref' in p ? resolvePointer(document, p.$ref.slice(1)) : p) as {
              name: string;
              in: string;
            },
        )
        .filter((p) => p.in === 'path')
        .map((p) => p.name);
      if (declared.sort().join() !== [...templated].sort().join())
        problems.push(
          `${where}: path parameters ${declared.join()} do not match the template`,
        );
      const seen = new Set<string>();
      for (const p of operation.parameters ?? []) {
        const resolved = (
          '$ref' in p ? resolvePointer(document, p.$ref.slice(1)) : p
        ) as { name: string; in: string };
        const key = `${resolved.in}:${resolved.name}`;
        if (seen.has(key)) problems.push(`${where}: parameter ${key} twice`);
        seen.add(key);
      }
      if (
        !Object.keys(operation.responses).some((status) => /^[23]/.test(status))
      )
        problems.push(`${where}: no success response`);
      // Documented operations must be served: the path (with sample values) routes to this method.
      const sample = path.replace(/\{[^}]+\}/g, '1');
      if (!routes.allowedMethods(sample).includes(method.toUpperCase()))
        problems.push(`${where}: documented but not served`);
    }
  }

  // Served routes must be documented: the route pattern matches a documented path.
  const documented = Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((m) => ({
      method: m.toUpperCase(),
      path,
    })),
  );
  for (const route of routes.list()) {
    if (['HEAD', 'OPTIONS'].includes(route.method)) continue;
    if (route.url === '/docs' || route.url.startsWith('/docs/')) continue;
    const pattern = new RegExp(`^${route.url.replace(/:[^/]+/g, '[^/]+')}$`);
    if (
      !documented.some((d) => d.method === route.method && pattern.test(d.path))
    )
      problems.push(`${route.method} ${route.url}: served but not documented`);
  }
  return problems;
}
