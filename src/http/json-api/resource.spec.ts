import { ListQuery } from '../../common/list-query';
import { parseIntegerId } from '../../common/ids';
import { Principal } from '../../common/principal';
import { Reader } from '../../common/reader';
import { Finders as RegisteredFinders, registerResources } from './resource';

interface Row {
  id: number;
}

/** A registered reader with integer ids, as `registerResources` wraps it. */
class Finders extends RegisteredFinders<Row> {
  constructor(reader: Reader<Row>) {
    super(reader as Reader<Row, unknown>, parseIntegerId);
  }
}

const principal: Principal = { userId: 1, apiKeyId: 1, testMode: true };

/** A reader over rows 1..3 that records which ids reached it. */
function source(withFindOne: boolean) {
  const asked: number[][] = [];
  const rows = [1, 2, 3].map((id) => ({ id }));
  const finders: Reader<Row> = {
    findMany: (_p, ids) => {
      asked.push(ids);
      return Promise.resolve(rows.filter((row) => ids.includes(row.id)));
    },
    findPage: () => Promise.resolve({ records: rows, total: 3 }),
  };
  if (withFindOne) {
    finders.findOne = (_p, id) => Promise.resolve(id === 2 ? { id: 2 } : null);
  }
  return { asked, finders };
}

describe('Finders (a registered reader)', () => {
  it('finds one record through findMany when the reader has no findOne', async () => {
    const { asked, finders } = source(false);
    const resource = new Finders(finders);
    await expect(resource.findOne(principal, '3')).resolves.toEqual({ id: 3 });
    await expect(resource.findOne(principal, '9')).resolves.toBeNull();
    expect(asked).toEqual([[3], [9]]);
  });

  it("prefers the reader's findOne", async () => {
    const { asked, finders } = source(true);
    const resource = new Finders(finders);
    await expect(resource.findOne(principal, '2')).resolves.toEqual({ id: 2 });
    expect(asked).toEqual([]);
  });

  it.each(['0', '01', 'abc', '1.5', '-1', '2147483648', ''])(
    'treats the id %j as missing without asking the reader',
    async (id) => {
      const { asked, finders } = source(false);
      await expect(
        new Finders(finders).findOne(principal, id),
      ).resolves.toBeNull();
      expect(asked).toEqual([]);
    },
  );

  it('drops ids that cannot be integers from findMany', async () => {
    const { asked, finders } = source(false);
    await expect(
      new Finders(finders).findMany(principal, ['1', 'x', '3', '0']),
    ).resolves.toEqual([{ id: 1 }, { id: 3 }]);
    expect(asked).toEqual([[1, 3]]);
  });

  it('delegates findPage, unless a filter matches nothing', async () => {
    const { finders } = source(false);
    let asked = 0;
    const counted = {
      ...finders,
      findPage: (...args: Parameters<typeof finders.findPage>) => {
        asked += 1;
        return finders.findPage(...args);
      },
    };
    await expect(
      new Finders(counted).findPage(principal, {
        unmatchable: {},
      } as ListQuery),
    ).resolves.toEqual({
      records: [{ id: 1 }, { id: 2 }, { id: 3 }],
      total: 3,
    });
    await expect(
      new Finders(counted).findPage(principal, {
        unmatchable: { status: 'lost' },
      } as unknown as ListQuery),
    ).resolves.toEqual({ records: [], total: 0 });
    expect(asked).toBe(1);
  });

  it('delegates findByFilter, and refuses it when the reader has none', async () => {
    const { finders } = source(false);
    expect(() =>
      new Finders(finders).findByFilter(principal, 'store_id', [1]),
    ).toThrow('This resource cannot be listed by store_id');
    finders.findByFilter = (_p, _filter, values) =>
      Promise.resolve(values.map((v) => ({ id: Number(v) })));
    await expect(
      new Finders(finders).findByFilter(principal, 'store_id', [7]),
    ).resolves.toEqual([{ id: 7 }]);
  });
});

describe('registerResources', () => {
  class RowSerializer {
    readonly type = 'rows';
  }
  class RowReader {}

  it('registers each serializer with its reader', () => {
    const registered: string[] = [];
    const provider = registerResources({
      type: 'rows',
      serializer: RowSerializer as never,
      reader: RowReader as never,
    }) as { useFactory: (...args: unknown[]) => unknown };
    provider.useFactory(
      { register: (s: RowSerializer) => registered.push(s.type) },
      new RowSerializer(),
      new RowReader(),
    );
    expect(registered).toEqual(['rows']);
  });

  it('refuses a serializer registered under another type', () => {
    const provider = registerResources({
      type: 'lines',
      serializer: RowSerializer as never,
      reader: RowReader as never,
    }) as { useFactory: (...args: unknown[]) => unknown };
    expect(() =>
      provider.useFactory(
        { register: () => undefined },
        new RowSerializer(),
        new RowReader(),
      ),
    ).toThrow('RowSerializer renders rows, registered as lines');
  });
});
