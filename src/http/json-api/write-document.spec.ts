import { Type } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { thrownAppError } from '../../../test/support/app-error';
import { parseBatchDocument, parseWriteDocument } from './write-document';

class Attributes {
  @IsString()
  @Length(1, 50)
  name: string;

  @IsOptional()
  @IsString()
  city?: string;
}

const rules = {
  type: 'customers',
  attributes: Attributes,
  relationships: { store: { type: 'stores', required: true } },
};

describe('parseWriteDocument', () => {
  it('returns validated attributes and relationship ids', () => {
    const document = parseWriteDocument(
      {
        data: {
          type: 'customers',
          attributes: { name: 'Ann' },
          relationships: { store: { data: { type: 'stores', id: '3' } } },
        },
      },
      rules,
    );
    expect(document.attributes).toEqual({ name: 'Ann' });
    expect(document.relationships).toEqual({ store: '3' });
  });

  it.each([
    [null, 400],
    [{}, 400],
    [{ data: [] }, 400],
    [{ data: { type: 'orders', attributes: {} } }, 400],
    [{ data: { type: 'customers', attributes: [] } }, 400],
  ])('refuses the shape %p with %i', (body, status) => {
    expect(thrownAppError(() => parseWriteDocument(body, rules)).status).toBe(
      status,
    );
  });

  it('gives one 422 per invalid attribute with a pointer, and ignores unknown ones', () => {
    const error = thrownAppError(() =>
      parseWriteDocument(
        {
          data: {
            type: 'customers',
            attributes: { name: 5, city: 6, shoe_size: 9 },
            relationships: { store: { data: { type: 'stores', id: '1' } } },
          },
        },
        rules,
      ),
    );
    expect(error.status).toBe(422);
    expect(error.errors).toEqual([
      {
        detail: 'The name must be a string.',
        source: { pointer: '/data/attributes/name' },
        code: 'invalid_attribute',
      },
      {
        detail: 'The city must be a string.',
        source: { pointer: '/data/attributes/city' },
        code: 'invalid_attribute',
      },
    ]);
    const document = parseWriteDocument(
      {
        data: {
          type: 'customers',
          attributes: { name: 'Ann', shoe_size: 9 },
          relationships: { store: { data: { type: 'stores', id: '1' } } },
        },
      },
      rules,
    );
    expect(document.attributes).toEqual({ name: 'Ann' });
  });

  it('requires required relationships and checks their type', () => {
    expect(
      thrownAppError(() =>
        parseWriteDocument(
          { data: { type: 'customers', attributes: { name: 'A' } } },
          rules,
        ),
      ).status,
    ).toBe(422);
    const wrongType = thrownAppError(() =>
      parseWriteDocument(
        {
          data: {
            type: 'customers',
            attributes: { name: 'A' },
            relationships: { store: { data: { type: 'users', id: '1' } } },
          },
        },
        rules,
      ),
    );
    expect(wrongType.status).toBe(400);
  });

  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty'])(
    'refuses a relationship named %s like any unknown one',
    (name) => {
      const error = thrownAppError(() =>
        parseWriteDocument(
          JSON.parse(
            JSON.stringify({
              data: {
                type: 'customers',
                attributes: { name: 'A' },
                relationships: {
                  store: { data: { type: 'stores', id: '1' } },
                },
              },
            }).replace(
              '"relationships":{',
              `"relationships":{"${name}":{"data":null},`,
            ),
          ),
          rules,
        ),
      );
      expect(error.status).toBe(422);
      expect(error.errors[0].source).toEqual({
        pointer: `/data/relationships/${name}`,
      });
    },
  );

  it('answers 409 when a PATCH id differs from the path', () => {
    const update = { type: 'customers', attributes: Attributes, update: true };
    const error = thrownAppError(() =>
      parseWriteDocument(
        { data: { type: 'customers', id: '2', attributes: { name: 'A' } } },
        update,
        '3',
      ),
    );
    expect(error.status).toBe(409);
    expect(
      parseWriteDocument(
        { data: { type: 'customers', id: '3', attributes: { name: 'A' } } },
        update,
        '3',
      ).id,
    ).toBe('3');
  });

  describe('attribute rules, once for every write route', () => {
    class Link {
      @IsString()
      @MaxLength(10)
      title: string;

      @IsOptional()
      @IsInt()
      position?: number;
    }

    class Plan {
      @IsInt()
      @Min(1)
      @Max(100)
      seats: number;

      @IsOptional()
      @IsInt()
      sort?: number;

      @IsOptional()
      @IsIn(['month', 'year'])
      interval?: string;

      @IsOptional()
      @IsIn(['a', 'b'], { each: true })
      tags?: string[];

      @IsOptional()
      @IsBoolean()
      trial?: boolean;

      @IsOptional()
      @Matches(/^[A-Z]+$/, { message: 'The code must be capital letters.' })
      code?: string;

      @IsOptional()
      @IsString()
      @Length(2, 4)
      label?: string;

      @IsOptional()
      @IsArray()
      @ValidateNested({ each: true })
      @Type(() => Link)
      links?: Link[];
    }

    const plan = (attributes: Record<string, unknown>) =>
      parseWriteDocument(
        { data: { type: 'plans', attributes } },
        { type: 'plans', attributes: Plan },
      );
    const details = (attributes: Record<string, unknown>) =>
      thrownAppError(() => plan(attributes)).errors.map((e) => [
        (e.source as { pointer: string }).pointer.replace(
          '/data/attributes/',
          '',
        ),
        e.detail,
      ]);

    it('takes integer strings for integer attributes, nested ones too', () => {
      expect(
        plan({
          seats: '12',
          sort: '-3',
          links: [{ title: 'Docs', position: '2' }],
        }).attributes,
      ).toEqual({
        seats: 12,
        sort: -3,
        links: [Object.assign(new Link(), { title: 'Docs', position: 2 })],
      });
    });

    it.each(['4.5', 'abc', '', '1e3', ' 4', '04', '+4', true, [4], {}])(
      'refuses %p where an integer belongs',
      (seats) => {
        expect(details({ seats })).toEqual([
          ['seats', 'The seats must be an integer.'],
        ]);
      },
    );

    it('names the one check that matters per field', () => {
      expect(details({})).toEqual([['seats', 'The seats is required.']]);
      expect(
        details({
          seats: '101',
          interval: 'week',
          tags: ['a', 'c'],
          trial: 'yes',
          code: 'abc',
          label: 'x',
          links: [{ title: 'a very long title' }, { position: 'x' }],
        }),
      ).toEqual([
        ['seats', 'The seats may be at most 100.'],
        ['interval', 'The interval must be one of: month, year.'],
        ['tags', 'Each entry of tags must be one of: a, b.'],
        ['trial', 'The trial must be true or false.'],
        ['code', 'The code must be capital letters.'],
        ['label', 'The label must be 2 to 4 characters.'],
        ['links/0/title', 'The links.0.title may be at most 10 characters.'],
        ['links/1/title', 'The links.1.title is required.'],
        ['links/1/position', 'The links.1.position must be an integer.'],
      ]);
      expect(details({ seats: 0, label: 5, links: 'x' })).toEqual([
        ['seats', 'The seats must be at least 1.'],
        ['label', 'The label must be a string.'],
        ['links', 'The links must be an array.'],
      ]);
      expect(details({ seats: 1, links: [5] })).toEqual([
        ['links/0', 'The links.0 must be an object.'],
      ]);
    });

    it('bounds an integer without a Max of its own by the integer column', () => {
      expect(details({ seats: 1, sort: 2147483648 })).toEqual([
        ['sort', 'The sort may be at most 2147483647.'],
      ]);
      expect(details({ seats: 1, sort: '-99999999999999999999' })).toEqual([
        ['sort', 'The sort must be at least -2147483648.'],
      ]);
      expect(plan({ seats: 1, sort: 2147483647 }).attributes.sort).toBe(
        2147483647,
      );
    });
  });
});

describe('parseBatchDocument', () => {
  const batchRules = { ...rules, batch: 3 };
  const member = (attributes: Record<string, unknown>, id?: unknown) => ({
    type: 'customers',
    ...(id === undefined ? {} : { id }),
    attributes,
    relationships: { store: { data: { type: 'stores', id: '3' } } },
  });

  it('parses each member with its client id, in order', () => {
    const documents = parseBatchDocument(
      { data: [member({ name: 'Ada' }, 'a-1'), member({ name: 'Bo' })] },
      batchRules,
    );
    expect(documents.map((d) => [d.id, d.attributes.name])).toEqual([
      ['a-1', 'Ada'],
      [undefined, 'Bo'],
    ]);
  });

  it('reports every invalid member at /data/<i>/attributes, in one 422', () => {
    const error = thrownAppError(() =>
      parseBatchDocument(
        {
          data: [member({ name: 'Ada' }), member({}), member({ name: '' })],
        },
        batchRules,
      ),
    );
    expect(error.status).toBe(422);
    expect(error.errors.map((e) => e.source)).toEqual([
      { pointer: '/data/1/attributes/name' },
      { pointer: '/data/2/attributes/name' },
    ]);
  });

  it.each([
    [{ data: [] }, '/data'],
    [{ data: [1, 2, 3, 4].map(() => member({ name: 'A' })) }, '/data'],
    [{ data: [member({ name: 'A' }), 'x'] }, '/data/1'],
    [{ data: [member({ name: 'A' }, 'has space')] }, '/data/0/id'],
    [{ data: [member({ name: 'A' }, 7)] }, '/data/0/id'],
    [{ data: [{ ...member({ name: 'A' }), type: 'stores' }] }, '/data/0/type'],
  ])('refuses %j at %s (400)', (body, pointer) => {
    const error = thrownAppError(() => parseBatchDocument(body, batchRules));
    expect(error.status).toBe(400);
    expect(error.errors[0].source).toEqual({ pointer });
  });
});
