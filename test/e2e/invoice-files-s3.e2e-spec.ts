import { readdirSync } from 'node:fs';
import request from 'supertest';
import { buy, buyNowUrl } from '../support/commerce';
import {
  createMerchant,
  createPricedProduct,
  Merchant,
} from '../support/factories';
import { pdfToText, pollInvoice } from '../support/invoices';
import { eventually } from '../support/processes';
import { startTestS3, TestS3 } from '../support/s3-server';
import { startTestApp, TestApp } from '../support/test-app';
import { startTestWorker, TestWorker } from '../support/worker';

// Invoice PDFs on the S3 backend: the worker stores them in the bucket, the
// API streams them back, and a re-render's replaced object is listed and deleted.
describe('invoice files on S3 storage', () => {
  let s3: TestS3;
  let t: TestApp;
  let worker: TestWorker;
  let merchant: Merchant;
  let orderId: string;

  beforeAll(async () => {
    s3 = await startTestS3('zest');
    Object.assign(process.env, s3.env);
    t = await startTestApp({ STORAGE_URL: s3.storageUrl });
    worker = await startTestWorker(t);
    merchant = await createMerchant(t.app, ['Bucket Store']);
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
    await s3?.close();
  });

  const objects = () =>
    (readdirSync(s3.directory, { recursive: true }) as string[]).filter(
      (path) =>
        path.includes(`zest/invoices/orders/${orderId}/`) &&
        path.endsWith('._S3rver_object'),
    );

  it('stores, serves and replaces invoice PDFs in the bucket', async () => {
    const response = await request(t.baseUrl)
      .post(`/v1/orders/${orderId}/generate-invoice`)
      .query({ name: 'Bucket Buyer' })
      .set('Authorization', `Bearer ${merchant.testKey}`)
      .set('Accept', 'application/vnd.api+json')
      .expect(200);
    const link = (
      response.body as { meta: { urls: { download_invoice: string } } }
    ).meta.urls.download_invoice;
    const first = await pollInvoice(link);
    expect(pdfToText(first.pdf)).toMatch(/\$50\.00/);
    expect(objects()).toHaveLength(1);

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
    const refunded = await pollInvoice(link);
    expect(pdfToText(refunded.pdf)).toMatch(/Refunded\s+-\$10\.00/);
    await eventually(
      () => Promise.resolve(objects().length === 1 ? true : undefined),
      'the replaced PDF to be deleted from the bucket',
    );
  });
});
