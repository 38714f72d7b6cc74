import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { AppError } from '../../common/app-error';
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
}

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
): WriteDocument<unknown>['relationships'] {
  if (raw !== undefined && !isObject(raw)) {
    throw shapeError('relationships must be an object.', '/data/relationships');
  }
  const given = raw ?? {};
  const result: WriteDocument<unknown>['relationships'] = {};
  for (const name of Object.keys(given)) {
    if (!Object.hasOwn(rules, name)) {
      throw AppError.unprocessable({
        detail: `Unknown relationship "${name}".`,
        source: { pointer: `/data/relationships/${name}` },
        code: HttpErrorCodes.unknownRelationship,
      });
    }
  }
  for (const [name, rule] of Object.entries(rules)) {
    const pointer = `/data/relationships/${name}`;
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
  if (typeof data.type !== 'string')
    throw shapeError('data.type is required.', '/data/type');
  if (data.type !== rules.type) {
    throw shapeError(
      `This endpoint takes "${rules.type}", not "${data.type}".`,
      '/data/type',
    );
  }
  let id: string | undefined;
  if (rules.update) {
    if (typeof data.id !== 'string' && typeof data.id !== 'number') {
      throw shapeError('data.id is required.', '/data/id');
    }
    id = String(data.id);
    if (id !== pathId) {
      throw AppError.conflict(
        'data.id does not match the id in the URL.',
        { pointer: '/data/id' },
        HttpErrorCodes.idMismatch,
      );
    }
  }
  const rawAttributes = data.attributes ?? {};
  if (!isObject(rawAttributes))
    throw shapeError('attributes must be an object.', '/data/attributes');

  const attributes = plainToInstance(rules.attributes, rawAttributes);
  const outOfRange = prepareIntegers(attributes, '/data/attributes');
  const errors = validationDetails(
    validateSync(attributes, {
      whitelist: true,
      forbidUnknownValues: true,
      validationError: { target: true, value: true },
    }),
    '/data/attributes',
  );
  const reported = new Set(errors.map((e) => JSON.stringify(e.source)));
  errors.push(
    ...outOfRange.filter((e) => !reported.has(JSON.stringify(e.source))),
  );
  if (errors.length > 0) throw AppError.unprocessable(errors);
  return {
    id,
    attributes,
    relationships: parseRelationships(
      data.relationships,
      rules.relationships ?? {},
    ),
  };
}

interface RequestWithBody {
  body?: unknown;
  params?: Record<string, string>;
}

/** Controller parameter: the request's JSON:API write document, checked against `rules`. */
export const JsonApiBody = createParamDecorator(
  <A extends object>(
    rules: WriteDocumentRules<A>,
    context: ExecutionContext,
  ) => {
    const request = context.switchToHttp().getRequest<RequestWithBody>();
    return parseWriteDocument(request.body, rules, request.params?.id);
  },
);
