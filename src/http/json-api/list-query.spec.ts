import { thrownAppError } from '../../../test/support/app-error';
import { filterParsers } from '../../common/list-query';
import { encodeCursor, parseListQuery } from './list-query';

const spec = {
  filters: {
    store_id: filterParsers.id,
    status: filterParsers.oneOf('paid', 'refunded'),
    refunded: filterParsers.boolean,
  },
  sorts: ['name', 'created_at'],
  defaultSort: '-createdAt',
};

describe('parseListQuery', () => {
  it('applies defaults and the reference spelling of the default sort', () => {
    const query = parseListQuery({}, spec, []);
    expect(query.page).toEqual({ number: 1, size: 10 });
    expect(query.sort).toEqual([{ field: 'created_at', descending: true }]);
    expect(query.sortParam).toBe('-createdAt');
  });

  it('parses typed filters', () => {
    const query = parseListQuery(
      {
        'filter[store_id]': '7',
        'filter[refunded]': 'false',
        'filter[status]': 'paid',
      },
      spec,
      [],
    );
    expect(query.filters).toEqual({
      store_id: 7,
      refunded: false,
      status: 'paid',
    });
  });

  it.each([
    [{ 'filter[status]': 'lost' }, { status: 'lost' }],
    [{ 'filter[refunded]': 'yes' }, { refunded: 'yes' }],
    [{ 'filter[store_id]': '0' }, { store_id: '0' }],
    [{ 'filter[store_id]': '-3' }, { store_id: '-3' }],
    [{ 'filter[store_id]': '2147483648' }, { store_id: '2147483648' }],
  ])(
    'keeps %p, a value no record can have, apart as unmatchable',
    (raw, unmatchable) => {
      const query = parseListQuery(
        { ...raw, 'filter[store_id]': '7', ...raw },
        spec,
        [],
      );
      expect(query.unmatchable).toEqual(unmatchable);
      expect(Object.keys(query.filters)).not.toContain(
        Object.keys(unmatchable)[0],
      );
    },
  );

  it.each([
    [{ 'filter[store_id]': 'x' }, 'filter[store_id]'],
    [{ 'filter[store_id]': '1.5' }, 'filter[store_id]'],
    [{ 'filter[store_id]': '' }, 'filter[store_id]'],
    [{ 'filter[store_id]': '07' }, 'filter[store_id]'],
    [{ 'filter[colour]': 'red' }, 'filter[colour]'],
    // Object.prototype's members are no filters, includes or sorts.
    ...[
      '__proto__',
      'constructor',
      'toString',
      'valueOf',
      'hasOwnProperty',
      '__defineGetter__',
      'isPrototypeOf',
    ].flatMap((name): [Record<string, string>, string][] => [
      [{ [`filter[${name}]`]: '1' }, `filter[${name}]`],
      [{ include: name }, 'include'],
      [{ sort: name }, 'sort'],
    ]),
    [{ 'page[size]': '0' }, 'page[size]'],
    [{ 'page[size]': '1.5' }, 'page[size]'],
    [{ include: 'x' }, 'include'],
    [{ sort: 'price' }, 'sort'],
  ])('refuses %p naming %s', (raw, parameter) => {
    const error = thrownAppError(() => parseListQuery(raw, spec, ['store']));
    expect(error.status).toBe(400);
    expect(error.errors[0].source).toEqual({ parameter });
  });

  it('treats an empty include as none and de-duplicates names', () => {
    expect(parseListQuery({ include: '' }, spec, ['store']).include).toEqual(
      [],
    );
    expect(
      parseListQuery({ include: 'store,store' }, spec, ['store']).include,
    ).toEqual(['store']);
  });

  it('accepts camelCase and snake_case sort names', () => {
    expect(parseListQuery({ sort: 'createdAt' }, spec, []).sort).toEqual([
      { field: 'created_at', descending: false },
    ]);
    expect(
      parseListQuery({ sort: '-created_at,name' }, spec, []).sort,
    ).toHaveLength(2);
  });
});

describe('parseListQuery: cursors (page[after]/page[before])', () => {
  const withCursors = { ...spec, cursors: true };

  it('decodes a cursor of its own making, and an empty page[after] as the start', () => {
    expect(
      parseListQuery({ 'page[after]': encodeCursor(42) }, withCursors, []).page,
    ).toEqual({
      number: 1,
      size: 10,
      cursor: { direction: 'after', id: 42 },
    });
    expect(
      parseListQuery({ 'page[after]': '' }, withCursors, []).page.cursor,
    ).toEqual({ direction: 'after', id: null });
    expect(
      parseListQuery(
        { 'page[before]': encodeCursor('7'), sort: 'name,created_at' },
        withCursors,
        [],
      ).page.cursor,
    ).toEqual({ direction: 'before', id: 7 });
  });

  it.each([
    [{ 'page[before]': '' }, 'page[before]', 'invalid_parameter'],
    [{ 'page[after]': 'abc' }, 'page[after]', 'invalid_parameter'],
    [
      { 'page[after]': Buffer.from('{"id":0}').toString('base64url') },
      'page[after]',
      'invalid_parameter',
    ],
    [
      { 'page[after]': '', 'page[number]': '2' },
      'page[after]',
      'invalid_parameter',
    ],
    [
      { 'page[after]': '', 'page[before]': encodeCursor(1) },
      'page[after]',
      'invalid_parameter',
    ],
    [
      { 'page[after]': '', sort: '-name,created_at' },
      'page[after]',
      'invalid_parameter',
    ],
  ])('refuses %j', (query, parameter, code) => {
    const error = thrownAppError(() => parseListQuery(query, withCursors, []));
    expect(error.status).toBe(400);
    expect(error.errors[0]).toMatchObject({ code, source: { parameter } });
  });

  it('knows no cursor on a list that does not page by them', () => {
    const error = thrownAppError(() =>
      parseListQuery({ 'page[after]': '' }, spec, []),
    );
    expect(error.errors[0]).toMatchObject({
      code: 'unknown_parameter',
      source: { parameter: 'page[after]' },
    });
  });
});
