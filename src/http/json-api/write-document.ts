import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { AppError, ErrorDetail } from '../../common/app-error';
import { WriteDocument } from '../../common/write-document';
import { prepareIntegers, validationDetails } from './attribute-validation';
import { HttpErrorCodes } from '../errors/http-error-codes';

type Constructor<T> = new () => T;

export interface RelationshipRule {
  /** The resource type the linkage must name. */
  type: string;
  required?: boolean;
  /** To-many linkage (`data: [...]`). */
  many?: boolean;
}

export interface WriteDocumentRules<A> {
  type: string;
  attributes: Constructor<A>;
  relationships?: Record<string, RelationshipRule>;
  /** PATCH: `data.id` must equal the `:id` path parameter. */
  update?: boolean;
  /**
   * POST only: `data` may also be an array of up to this many resource
   * objects (a batch, all-or-nothing), each with an optional client `id`
   * (`BATCH_ID`); the handler then gets an array of write documents.
   */
  batch?: number;
}

/** A client `id` in a batch: what the handler may key idempotency on. */
export const BATCH_ID = /^[A-Za-z0-9._:-]{1,100}$/;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function shapeError(detail: string, pointer: string) {
  return AppError.badRequest(
    detail,
    { pointer },
    HttpErrorCodes.invalidDocument,
  );
}

function identifier(
  value: unknown,
  rule: RelationshipRule,
  pointer: string,
): string {
  if (
    !isObject(value) ||
    typeof value.type !== 'string' ||
    value.id === undefined
  ) {
    throw shapeError('A resource identifier needs a type and an id.', pointer);
  }
  if (value.type !== rule.type) {
    throw shapeError(
      `Expected type "${rule.type}", got "${value.type}".`,
      `${pointer}/type`,
    );
  }
  if (typeof value.id !== 'string' && typeof value.id !== 'number') {
    throw shapeError(
      'A resource identifier id must be a string.',
      `${pointer}/id`,
    );
  }
  return String(value.id);
}

function parseRelationships(
  raw: unknown,
  rules: Record<string, RelationshipRule>,
  base: string,
): WriteDocument<unknown>['relationships'] {
  if (raw !== undefined && !isObject(raw)) {
    throw shapeError(
      'relationships must be an object.',
      `${base}/relationships`,
    );
  }
  const given = raw ?? {};
  const result: WriteDocument<unknown>['relationships'] = {};
  for (const name of Object.keys(given)) {
    if (!Object.hasOwn(rules, name)) {
      throw AppError.unprocessable({
        detail: `Unknown relationship "${name}".`,
        source: { pointer: `${base}/relationships/${name}` },
        code: HttpErrorCodes.unknownRelationship,
      });
    }
  }
  for (const [name, rule] of Object.entries(rules)) {
    const pointer = `${base}/relationships/${name}`;
    const relationship = given[name];
    if (relationship === undefined) {
      if (rule.required) {
        throw AppError.unprocessable({
          detail: `The ${name} relationship is required.`,
          source: { pointer },
          code: HttpErrorCodes.relationshipRequired,
        });
      }
      continue;
    }
    if (!isObject(relationship) || !('data' in relationship)) {
      throw shapeError('A relationship needs a data member.', pointer);
    }
    const data = relationship.data;
    if (rule.many) {
      if (!Array.isArray(data))
        throw shapeError(
          'This relationship takes an array of identifiers.',
          `${pointer}/data`,
        );
      result[name] = data.map((item, i) =>
        identifier(item, rule, `${pointer}/data/${i}`),
      );
    } else {
      if (data === null && !rule.required) continue;
      result[name] = identifier(data, rule, `${pointer}/data`);
    }
  }
  return result;
}

/**
 * Checks a JSON:API write body and validates its attributes against a
 * class-validator class. A wrong shape (including a wrong `data.type`) is a
 * 400, a PATCH `data.id` that differs from the path a 409 (as JSON:API says),
 * and invalid attributes a 422 with one error per field. Attributes the
 * class does not know are dropped: clients send fields a server may not
 * know (the Laravel package's `product_id` on a plan change), and new
 * optional parameters are a backwards-compatible change (spec 9).
 */
export function parseWriteDocument<A extends object>(
  body: unknown,
  rules: WriteDocumentRules<A>,
  pathId?: string,
): WriteDocument<A> {
  if (!isObject(body))
    throw shapeError('The request body must be a JSON:API document.', '');
  const data = body.data;
  if (!isObject(data))
    throw shapeError('The document needs a data object.', '/data');
  const parsed = parseResource(data, rules, '/data', pathId);
  if (parsed.errors.length > 0) throw AppError.unprocessable(parsed.errors);
  return parsed.document;
}

/**
 * A batch write (`rules.batch`): `data` an array of resource objects, each
 * checked as a single write's `data` is, with pointers `/data/<i>/…`. Any
 * invalid member fails the whole batch (every member's attribute errors
 * in one 422); a single `data` object is a batch of one.
 */
export function parseBatchDocument<A extends object>(
  body: unknown,
  rules: WriteDocumentRules<A> & { batch: number },
): WriteDocument<A>[] {
  if (!isObject(body) || !Array.isArray(body.data))
    return [parseWriteDocument(body, rules)];
  const items: unknown[] = body.data;
  if (items.length === 0 || items.length > rules.batch) {
    throw shapeError(
      `A batch holds 1 to ${rules.batch} resource objects.`,
      '/data',
    );
  }
  const documents: WriteDocument<A>[] = [];
  const errors: ErrorDetail[] = [];
  items.forEach((item, i) => {
    const base = `/data/${i}`;
    if (!isObject(item))
      throw shapeError('Each member of data must be a resource object.', base);
    if (
      item.id !== undefined &&
      (typeof item.id !== 'string' || !BATCH_ID.test(item.id))
    ) {
      throw shapeError(
        'A client id is 1 to 100 letters, digits or ._:- characters.',
        `${base}/id`,
      );
    }
    const parsed = parseResource(item, rules, base);
    errors.push(...parsed.errors);
    documents.push({ ...parsed.document, id: item.id as string | undefined });
  });
  if (errors.length > 0) throw AppError.unprocessable(errors);
  return documents;
}

/** One resource object of a write at `base` (`/data`, or `/data/<i>` in a batch). */
function parseResource<A extends object>(
  data: Record<string, unknown>,
  rules: WriteDocumentRules<A>,
  base: string,
  pathId?: string,
): { document: WriteDocument<A>; errors: ErrorDetail[] } {
  if (typeof data.type !== 'string')
    throw shapeError('data.type is required.', `${base}/type`);
  if (data.type !== rules.type) {
    throw shapeError(
      `This endpoint takes "${rules.type}", not "${data.type}".`,
      `${base}/type`,
    );
  }
  let id: string | undefined;
  if (rules.update) {
    if (typeof data.id !== 'string' && typeof data.id !== 'number') {
      throw shapeError('data.id is required.', `${base}/id`);
    }
    id = String(data.id);
    if (id !== pathId) {
      throw AppError.conflict(
        'data.id does not match the id in the URL.',
        { pointer: `${base}/id` },
        HttpErrorCodes.idMismatch,
      );
    }
  }
  const rawAttributes = data.attributes ?? {};
  if (!isObject(rawAttributes))
    throw shapeError('attributes must be an object.', `${base}/attributes`);

  const attributes = plainToInstance(rules.attributes, rawAttributes);
  const outOfRange = prepareIntegers(attributes, `${base}/attributes`);
  const errors: ErrorDetail[] = validationDetails(
    validateSync(attributes, {
      whitelist: true,
      forbidUnknownValues: true,
      validationError: { target: true, value: true },
    }),
    `${base}/attributes`,
  );
  const reported = new Set(errors.map((e) => JSON.stringify(e.source)));
  errors.push(
    ...outOfRange.filter((e) => !reported.has(JSON.stringify(e.source))),
  );
  return {
    document: {
      id,
      attributes,
      relationships:
        errors.length > 0
          ? {}
          : parseRelationships(
              data.relationships,
              rules.relationships ?? {},
              base,
            ),
    },
    errors,
  };
}

interface RequestWithBody {
  body?: { data?: unknown } | null;
  params?: Record<string, string>;
}

/** Controller parameter: the request's JSON:API write document, checked against `rules`. */
export const JsonApiBody = createParamDecorator(
  <A extends object>(
    rules: WriteDocumentRules<A>,
    context: ExecutionContext,
  ) => {
    const request = context.switchToHttp().getRequest<RequestWithBody>();
    if (rules.batch !== undefined && Array.isArray(request.body?.data))
      return parseBatchDocument(request.body, {
        ...rules,
        batch: rules.batch,
      });
    return parseWriteDocument(request.body, rules, request.params?.id);
  },
);
