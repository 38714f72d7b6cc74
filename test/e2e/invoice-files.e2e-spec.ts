import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { buy, buyNowUrl } from '../support/commerce';
import {
  createMerchant,
  createPricedProduct,
  Merchant,
} from '../support/factories';
import { pdfToText, pollInvoice } from '../support/invoices';
import { eventually } from '../support/processes';
import { startTestApp, TestApp } from '../support/test-app';
import { startTestWorker, TestWorker } from '../support/worker';

// The files behind invoice links, on a STORAGE_DIR of the test's own.
describe('invoice files on disk', () => {
  const storageDir = mkdtempSync(join(tmpdir(), 'zest-invoice-files-'));
  const leftovers = join(storageDir, 'invoices', 'orders', '999999');
  const stale = join(leftovers, 'a.pdf.0123456789ab.tmp');
  const inProgress = join(leftovers, 'a.pdf.ba9876543210.tmp');
  let t: TestApp;
  let worker: TestWorker;
  let merchant: Merchant;
  let orderId: string;

  beforeAll(async () => {
    // A write cut short by a killed worker two hours ago, and one going on now.
    mkdirSync(leftovers, { recursive: true });
    writeFileSync(stale, '%PDF-1.7 partial');
    writeFileSync(inProgress, '%PDF-1.7 partial');
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    utimesSync(stale, twoHoursAgo, twoHoursAgo);

    t = await startTestApp({ STORAGE_DIR: storageDir });
    worker = await startTestWorker(t);
    merchant = await createMerchant(t.app, ['File Store']);
    const { product } = await createPricedProduct(
      t.baseUrl,
      merchant.testKey,
      merchant.stores[0].id,
      { unit_price: 5000 },
    );
    const url = await buyNowUrl(t.baseUrl, merchant.testKey, product.id);
    const purchase = await buy(t.baseUrl, url).expect(201);
    orderId = (purchase.body as { data: { id: string } }).data.id;
  });
  afterAll(async () => {
    await worker?.close();
    await t?.close();
    rmSync(storageDir, { recursive: true, force: true });
  });

  const files = () => {
    try {
      return readdirSync(join(storageDir, 'invoices', 'orders', orderId));
    } catch {
      return [];
    }
  };
  const link = async (name: string) => {
    const response = await request(t.baseUrl)
      .post(`/v1/orders/${orderId}/generate-invoice`)
      .query({ name })
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .set('Accept', 'application/vnd.api+json')
      .expect(200);
    return (response.body as { meta: { urls: { download_invoice: string } } })
      .meta.urls.download_invoice;
  };
  /** The files once the replaced one is gone: it is deleted just after the new one is stored. */
  const twoFiles = () =>
    eventually(() => {
      const names = files();
      return Promise.resolve(names.length === 2 ? names : undefined);
    }, 'the replaced file to be deleted');
  /** The bill-to fields a file was rendered with: the first part of its name. */
  const fieldsOf = (name: string) => name.split('-')[0];

  it('sweeps the temporary files of killed writes at worker start, not a write in progress', async () => {
    await eventually(
      () => Promise.resolve(existsSync(stale) ? undefined : true),
      'the stale temporary file to be removed',
    );
    expect(existsSync(inProgress)).toBe(true);
  });

  it('deletes the file a re-render replaces, once the new one is stored; old links get the new PDF', async () => {
    const first = await link('First Link');
    const second = await link('Second Link');
    await pollInvoice(first);
    await pollInvoice(second);
    const before = files();
    expect(before).toHaveLength(2);

    await request(t.baseUrl)
      .post(`/v1/orders/${orderId}/refund`)
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .set('Content-Type', 'application/vnd.api+json')
      .send(
        JSON.stringify({
          data: { type: 'orders', id: orderId, attributes: { amount: 1000 } },
        }),
      )
      .expect(200);

    // The same link: rendered anew on request, then the refunded invoice.
    const refunded = await pollInvoice(first);
    expect(refunded.statuses[0]).toBe(202);
    expect(pdfToText(refunded.pdf)).toMatch(/Refunded\s+-\$10\.00/);
    const after = await twoFiles();
    const replaced = before.filter((name) => !after.includes(name));
    const added = after.filter((name) => !before.includes(name));
    expect(replaced).toHaveLength(1);
    expect(added).toHaveLength(1);
    expect(fieldsOf(added[0])).toBe(fieldsOf(replaced[0]));
    // The other fields' file stays until its own link asks again.
    const kept = before.find((name) => name !== replaced[0])!;
    expect(after).toContain(kept);

    const again = await pollInvoice(second);
    expect(again.statuses[0]).toBe(202);
    expect(pdfToText(again.pdf)).toContain('Second Link');
    const final = await twoFiles();
    expect(final).toContain(added[0]);
    expect(final).not.toContain(kept);
    // Served again from the stored files, no render needed.
    expect((await pollInvoice(first)).statuses).toEqual([200]);
    expect((await pollInvoice(second)).statuses).toEqual([200]);
  });
});
