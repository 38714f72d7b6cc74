import { writeFileSync } from 'node:fs';
import request from 'supertest';
import { startTestApp, TestApp } from '../support/test-app';

describe('OpenAPI document', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('is served at /v1/openapi.json', async () => {
    const response = await request(app.baseUrl).get('/v1/openapi.json');
    writeFileSync('/tmp/oa/doc.json', JSON.stringify(response.body, null, 2));
    expect(response.status).toBe(200);
  });
});
