import { jest } from '@jest/globals';
import { DataSource } from 'typeorm';
import { ListQuery, SortKey } from '../common/list-query';
import { applyListPage, listPage } from './list-page';

// Builds SQL only: the data source is never connected.
const dataSource = new DataSource({ type: 'postgres' });

const SORTS = { name: 's.name', created_at: 's.created_at', id: 's.id' };

function query(sort: SortKey[], number = 1, size = 10): ListQuery {
  return {
    page: { number, size },
    filters: {},
    sort,
    sortParam: '',
    unmatchable: {},
    include: [],
  };
}

function sql(listQuery: ListQuery): string {
  const builder = dataSource
    .createQueryBuilder()
    .select('s.id')
    .from('stores', 's');
  return applyListPage(builder, 's', SORTS, listQuery).getQuery();
}

describe('applyListPage', () => {
  it('orders by the sort keys, then by id in the direction of the last key', () => {
    expect(
      sql(
        query([
          { field: 'name', descending: false },
          { field: 'created_at', descending: true },
        ]),
      ),
    ).toContain('ORDER BY s.name ASC, s.created_at DESC, s.id DESC');
    expect(sql(query([{ field: 'name', descending: false }]))).toContain(
      'ORDER BY s.name ASC, s.id ASC',
    );
  });

  it('adds no tie-breaker when the sort already names id', () => {
    expect(sql(query([{ field: 'id', descending: true }]))).toMatch(
      /ORDER BY s\.id DESC LIMIT/,
    );
  });

  it('breaks ties by ascending id when there is no sort key', () => {
    expect(sql(query([]))).toContain('ORDER BY s.id ASC');
  });

  it('skips the earlier pages', () => {
    expect(sql(query([], 3, 25))).toMatch(/LIMIT 25 OFFSET 50$/);
    expect(sql(query([], 1, 10))).toMatch(/LIMIT 10 OFFSET 0$/);
  });

  it('refuses a sort key the repository has no column for', () => {
    expect(() => sql(query([{ field: 'total', descending: false }]))).toThrow(
      'No column to sort s by total',
    );
  });
});

describe('listPage', () => {
  it('returns the records and the total of one getManyAndCount', async () => {
    const builder = dataSource
      .createQueryBuilder()
      .select('s.id')
      .from('stores', 's');
    const getManyAndCount = jest
      .spyOn(builder, 'getManyAndCount')
      .mockResolvedValue([[{ id: 1 }], 31]);
    await expect(
      listPage(
        builder,
        's',
        SORTS,
        query([{ field: 'name', descending: false }]),
      ),
    ).resolves.toEqual({ records: [{ id: 1 }], total: 31 });
    expect(getManyAndCount).toHaveBeenCalledTimes(1);
  });
});
