import { jest } from '@jest/globals';
import { DataSource } from 'typeorm';
import { ListQuery, SortKey } from '../common/list-query';
import { applyListPage, listPage, storeScopedPageSql } from './list-page';

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

describe('storeScopedPageSql', () => {
  const pageSql = (listQuery: ListQuery) =>
    storeScopedPageSql({
      select: 's.*',
      table: 'sales',
      alias: 's',
      userIdParameter: '$1',
      where: 's.test_mode = $2',
      sortColumns: SORTS,
      query: listQuery,
    }).replace(/\s+/g, ' ');

  it('merges per-store pages of keys, then reads the page by id, in the order applyListPage gives', () => {
    const sorted = query([{ field: 'created_at', descending: true }], 3, 25);
    const text = pageSql(sorted);
    // Each store: its first offset + size keys, in its index order.
    expect(text).toContain(
      'SELECT s.id AS page_id, s.created_at AS page_key_0 FROM sales s WHERE s.store_id = page_store.id AND s.test_mode = $2 ORDER BY s.created_at DESC, s.id DESC LIMIT 75',
    );
    // The merge: the user's stores, paged.
    expect(text).toContain(
      'WHERE page_store.user_id = $1 ORDER BY page.page_key_0 DESC, page.page_id DESC LIMIT 25 OFFSET 50',
    );
    expect(text).toMatch(
      /JOIN \(.*\) page_ids ON page_ids\.page_id = s\.id ORDER BY s\.created_at DESC, s\.id DESC$/,
    );
    expect(sql(sorted)).toContain(
      'ORDER BY s.created_at DESC, s.id DESC LIMIT 25 OFFSET 50',
    );
  });

  it('reads one store directly when the list is filtered to it', () => {
    const inStore = {
      ...query([{ field: 'name', descending: false }], 2),
      filters: { store_id: 7 },
    };
    const text = pageSql(inStore);
    expect(text).not.toContain('LATERAL');
    expect(text).toMatch(
      /WHERE s\.store_id IN \(SELECT id FROM stores WHERE user_id = \$1\) AND s\.test_mode = \$2 ORDER BY s\.name ASC, s\.id ASC LIMIT 10 OFFSET 10$/,
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
