import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignedUrls } from '../../common/signed-urls.service';
import type { AppConfig } from '../../config/app-config';
import { LocalFileStorage } from '../../storage/local-file-storage';
import { InvoiceBillToService } from './invoice-bill-to.service';
import { InvoiceSources } from './invoice-source';
import { InvoiceData } from './invoice-view';
import { InvoicePdfJob, InvoicePdfJobs } from './invoice.queue';
import { InvoiceService } from './invoice.service';

const paid: InvoiceData = {
  storeId: 3,
  number: 'S-7',
  issuedAt: new Date('2026-11-01T00:00:00Z'),
  currency: 'EUR',
  status: 'paid',
  statusLabel: 'Paid',
  testMode: true,
  store: { name: 'Sample Co', lines: [] },
  customer: { name: 'Sam Ple', email: 'sam@example.com', country: null },
  lines: [
    { description: 'Monthly plan', quantity: 1, unitPrice: 1200, total: 1200 },
  ],
  subtotal: 1200,
  discountTotal: 0,
  tax: 0,
  total: 1200,
  taxName: null,
  taxRate: null,
  taxInclusive: false,
  refundedAmount: 0,
  refundedAt: null,
};
/** Partly refunded: still paid, with less of it kept. */
const refunded: InvoiceData = { ...paid, refundedAmount: 200 };

/** Which PDFs replace which, over a real storage folder. */
describe('InvoiceService: replaced files', () => {
  let root: string;
  let service: InvoiceService;
  /** What the source answers, call after call (the last one repeats). */
  let answers: InvoiceData[];
  // The stored details of token `t` are `{name: t}` here.
  const job = (name: string): InvoicePdfJob => ({
    type: 'samples',
    id: 7,
    scope: { userId: 1, testMode: true },
    billTo: name,
  });
  const billTo = {
    find: (_owner: unknown, token: string) =>
      Promise.resolve(token === 'elsewhere' ? null : { name: token }),
  } as unknown as InvoiceBillToService;
  const files = () => readdirSync(join(root, 'invoices/samples/7')).sort();

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'zest-invoice-service-'));
    const sources = new InvoiceSources();
    sources.register({
      type: 'samples',
      load: () =>
        Promise.resolve(answers.length > 1 ? answers.shift()! : answers[0]),
    });
    service = new InvoiceService(
      sources,
      {} as InvoicePdfJobs,
      billTo,
      {} as SignedUrls,
      new LocalFileStorage(root),
      { invoices: { font: null, boldFont: null } } as AppConfig,
    );
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('replaces the file of the same fields once the record changed, keeping other fields’ files', async () => {
    answers = [paid];
    await service.render(job('Ada'));
    await service.render(job('Bob'));
    const before = files();
    expect(before).toHaveLength(2);

    answers = [refunded];
    await service.render(job('Ada'));
    const after = files();
    expect(after).toHaveLength(2);
    const [gone] = before.filter((name) => !after.includes(name));
    const [added] = after.filter((name) => !before.includes(name));
    expect(added.split('-')[0]).toBe(gone.split('-')[0]);
  });

  it('keeps the newer file when a render of data read before a change finishes last', async () => {
    answers = [refunded];
    await service.render(job('Ada'));
    const newer = files();
    // The stale render read the record before the refund; by its check, it had changed.
    answers = [paid, refunded];
    await service.render(job('Ada'));
    expect(files()).toHaveLength(2);
    expect(files()).toEqual(expect.arrayContaining(newer));
  });

  it('renders a job queued with the fields inline (before they were stored) to the file of the same stored details', async () => {
    answers = [paid];
    await service.render(job('Ada'));
    const stored = files();
    expect(stored).toHaveLength(1);
    await service.render({
      ...job('Ada'),
      billTo: null,
      fields: { name: 'Ada' },
    });
    expect(files()).toEqual(stored);
  });

  it('renders nothing when the details are not found for the record’s store and mode', async () => {
    answers = [paid];
    await service.render(job('elsewhere'));
    expect(() => files()).toThrow();
  });
});
