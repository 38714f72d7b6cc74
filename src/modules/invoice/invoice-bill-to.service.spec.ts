import { InvoiceBillTo } from './invoice-bill-to.entity';
import {
  BillToOwner,
  InvoiceBillToRepository,
} from './invoice-bill-to.repository';
import {
  BILL_TO_TOKEN,
  billToDigest,
  InvoiceBillToService,
} from './invoice-bill-to.service';
import { InvoiceFields } from './invoice-view';

/** The repository's contract in memory: one row per owner and digest. */
function memoryRepository(rows: InvoiceBillTo[] = []): InvoiceBillToRepository {
  return {
    findByToken: (token: string) =>
      Promise.resolve(rows.find((row) => row.token === token) ?? null),
    findOrCreate(
      owner: BillToOwner,
      digest: string,
      fields: InvoiceFields,
      newToken: string,
    ) {
      const found = rows.find(
        (row) =>
          row.storeId === owner.storeId &&
          row.testMode === owner.testMode &&
          row.digest === digest,
      );
      if (found) return Promise.resolve(found.token);
      rows.push({
        id: rows.length + 1,
        token: newToken,
        ...owner,
        digest,
        name: fields.name ?? null,
        address: fields.address ?? null,
        city: fields.city ?? null,
        state: fields.state ?? null,
        zipCode: fields.zip_code ?? null,
        country: fields.country ?? null,
        notes: fields.notes ?? null,
        locale: fields.locale ?? null,
        createdAt: new Date(),
      });
      return Promise.resolve(newToken);
    },
  } as unknown as InvoiceBillToRepository;
}

describe('InvoiceBillToService', () => {
  const owner = { storeId: 4, testMode: true };

  it('names a set of details by one digest whatever its key order', () => {
    expect(billToDigest({ name: 'Ada', city: 'London' })).toBe(
      billToDigest({ city: 'London', name: 'Ada' }),
    );
    expect(billToDigest({ name: 'Ada' })).not.toBe(
      billToDigest({ city: 'Ada' }),
    );
    expect(billToDigest({ name: 'Ada' })).toMatch(/^[0-9a-f]{64}$/);
  });

  it('stores nothing for no details, and one row per store, mode and set of details', async () => {
    const rows: InvoiceBillTo[] = [];
    const service = new InvoiceBillToService(memoryRepository(rows));
    expect(await service.save(owner, {})).toBeNull();
    const token = await service.save(owner, { name: 'Ada', notes: 'PO 1' });
    expect(token).toMatch(BILL_TO_TOKEN);
    expect(await service.save(owner, { notes: 'PO 1', name: 'Ada' })).toBe(
      token,
    );
    const live = await service.save(
      { ...owner, testMode: false },
      { name: 'Ada', notes: 'PO 1' },
    );
    expect(live).not.toBe(token);
    expect(rows).toHaveLength(2);
  });

  it('returns the details only to their own store and mode, in the fixed field order', async () => {
    const service = new InvoiceBillToService(memoryRepository());
    const token = (await service.save(owner, {
      notes: 'PO 1',
      zip_code: '22202',
      name: 'Ada',
    }))!;
    const found = await service.find(owner, token);
    expect(found).toEqual({ name: 'Ada', zip_code: '22202', notes: 'PO 1' });
    expect(Object.keys(found!)).toEqual(['name', 'zip_code', 'notes']);
    expect(await service.find({ ...owner, storeId: 5 }, token)).toBeNull();
    expect(await service.find({ ...owner, testMode: false }, token)).toBeNull();
    expect(await service.find(owner, 'not a token')).toBeNull();
  });
});
