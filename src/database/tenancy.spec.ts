import { DataSource } from 'typeorm';
import { ListQuery, SortKey } from '../common/list-query';
import {
  callerScopes,
  inOwnedStores,
  scoped,
  sqlScope,
  Tenancy,
} from './tenancy';

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

const flat = (sql: string) => sql.replace(/\s+/g, ' ').trim();

describe('scoped', () => {
  const builder = () =>
    dataSource.createQueryBuilder().select('s.id').from('sales', 's');

  it("limits a table to the user's stores in the key's mode", () => {
    const [sql, parameters] = scoped(builder(), 's', {
      userId: 4,
      testMode: true,
    }).getQueryAndParameters();
    expect(flat(sql)).toBe(
      'SELECT s.id FROM "sales" "s" WHERE s.test_mode = $1 AND s.store_id IN (SELECT tenant_store.id FROM stores tenant_store WHERE tenant_store.user_id = $2)',
    );
    expect(parameters).toEqual([true, 4]);
  });

  it('limits a table to one store in one mode', () => {
    const [sql, parameters] = scoped(builder(), 's', {
      storeId: 9,
      testMode: false,
    }).getQueryAndParameters();
    expect(flat(sql)).toBe(
      'SELECT s.id FROM "sales" "s" WHERE s.test_mode = $1 AND s.store_id = $2',
    );
    expect(parameters).toEqual([false, 9]);
  });

  it('refuses a tenancy that names neither a user nor a store', () => {
    // The type already refuses it; this is for a caller that casts.
    const neither = { testMode: true } as unknown as Tenancy;
    expect(() => scoped(builder(), 's', neither)).toThrow(
      'A tenancy names a user or a store',
    );
    expect(() => sqlScope(neither, [])).toThrow(
      'A tenancy names a user or a store',
    );
  });
});

describe('sqlScope', () => {
  it('appends the values to the parameters and numbers the condition after them', () => {
    const params: unknown[] = [17];
    const scope = sqlScope({ userId: 4, testMode: true }, params);
    expect(params).toEqual([17, 4, true]);
    expect(scope.on('o')).toBe(
      'o.test_mode = $3 AND o.store_id IN (SELECT tenant_store.id FROM stores tenant_store WHERE tenant_store.user_id = $2)',
    );
  });

  it("restricts per-store rows of both modes to the user's stores", () => {
    const params: unknown[] = [];
    expect(inOwnedStores('c.store_id', { userId: 4 }, params)).toBe(
      'c.store_id IN (SELECT tenant_store.id FROM stores tenant_store WHERE tenant_store.user_id = $1)',
    );
    expect(params).toEqual([4]);
  });

  it('scopes a store tenancy to the store', () => {
    const params: unknown[] = [];
    expect(sqlScope({ storeId: 3, testMode: false }, params).on('v')).toBe(
      'v.test_mode = $1 AND v.store_id = $2',
    );
    expect(params).toEqual([false, 3]);
  });

  describe('page', () => {
    const pageSql = (listQuery: ListQuery, filters: string[] = []) => {
      const params: unknown[] = [];
      return flat(
        sqlScope({ userId: 4, testMode: true }, params).page({
          select: 's.*',
          table: 'sales',
          alias: 's',
          filters,
          sortColumns: SORTS,
          query: listQuery,
        }),
      );
    };

    it('merges per-store pages of keys, then reads the page by id', () => {
      const text = pageSql(
        query([{ field: 'created_at', descending: true }], 3, 25),
      );
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
    });

    it('pages one store by its own ids (a deferred join) when the list is filtered to it', () => {
      const text = pageSql(
        {
          ...query([{ field: 'name', descending: false }], 2),
          filters: { store_id: 7 },
        },
        ['s.store_id = $3'],
      );
      expect(text).not.toContain('LATERAL');
      expect(text).toBe(
        'SELECT s.* FROM sales s JOIN (SELECT s.id AS page_id FROM sales s WHERE s.test_mode = $2 AND s.store_id = $3 AND EXISTS (SELECT 1 FROM stores tenant_store WHERE tenant_store.id = $3 AND tenant_store.user_id = $1) AND s.store_id = $3 ORDER BY s.name ASC, s.id ASC LIMIT 10 OFFSET 10) page_ids ON page_ids.page_id = s.id ORDER BY s.name ASC, s.id ASC',
      );
    });
  });
});

describe('callerScopes', () => {
  it("restricts each caller's row to that caller's stores in its mode", () => {
    const params: unknown[] = ['first'];
    const scope = callerScopes(
      [
        { userId: 4, apiKeyId: 1, testMode: true },
        { userId: 7, apiKeyId: 2, testMode: false },
      ],
      params,
    );
    expect(params).toEqual(['first', [4, 7], [true, false]]);
    expect(scope.callers).toBe(
      'unnest($2::integer[], $3::boolean[]) WITH ORDINALITY AS callers(user_id, test_mode, ord)',
    );
    expect(scope.on('i')).toBe(
      'i.test_mode = callers.test_mode AND i.store_id IN (SELECT tenant_store.id FROM stores tenant_store WHERE tenant_store.user_id = callers.user_id)',
    );
  });
});
