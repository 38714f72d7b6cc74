import {
  createServer,
  IncomingMessage,
  Server,
  ServerResponse,
} from 'node:http';
import { AddressInfo } from 'node:net';
import type { AppConfig } from '../../config/app-config';
import { BuiltinTaxProvider } from './builtin-tax.provider';
import { TaxEngine } from './tax-engine';
import { ViesClient } from './vies-client';

type Handler = (
  body: { countryCode: string; vatNumber: string },
  response: ServerResponse,
) => void;

/**
 * A local stand-in for the VIES REST API: `POST /check-vat-number` with
 * `{countryCode, vatNumber}`, answered by the test's handler.
 */
class ViesStandIn {
  readonly requests: { countryCode: string; vatNumber: string }[] = [];
  handler: Handler = (_body, response) => json(response, 200, { valid: true });
  private server: Server;

  async start(): Promise<string> {
    this.server = createServer((request: IncomingMessage, response) => {
      let raw = '';
      request.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      request.on('end', () => {
        if (request.method !== 'POST' || request.url !== '/check-vat-number') {
          json(response, 404, {});
          return;
        }
        const body = JSON.parse(raw) as {
          countryCode: string;
          vatNumber: string;
        };
        this.requests.push(body);
        this.handler(body, response);
      });
    });
    await new Promise<void>((resolve) =>
      this.server.listen(0, '127.0.0.1', resolve),
    );
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function json(response: ServerResponse, status: number, body: unknown) {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

describe('ViesClient against a VIES stand-in', () => {
  const vies = new ViesStandIn();
  let url: string;
  beforeAll(async () => {
    url = await vies.start();
  });
  afterAll(() => vies.stop());
  beforeEach(() => {
    vies.requests.length = 0;
  });

  it('asks with the country prefix split off and reads valid and invalid', async () => {
    vies.handler = (body, response) =>
      json(response, 200, {
        countryCode: body.countryCode,
        vatNumber: body.vatNumber,
        valid: body.vatNumber === '136695976',
      });
    const client = new ViesClient(url, 2000);
    expect(await client.check('DE136695976')).toBe('valid');
    expect(await client.check('ATU13585627')).toBe('invalid');
    expect(vies.requests).toEqual([
      { countryCode: 'DE', vatNumber: '136695976' },
      { countryCode: 'AT', vatNumber: 'U13585627' },
    ]);
  });

  it('caches answers, and asks again when they expire', async () => {
    let now = 0;
    vies.handler = (_body, response) => json(response, 200, { valid: true });
    const client = new ViesClient(url, 2000, () => now);
    await client.check('DE136695976');
    await client.check('DE136695976');
    expect(vies.requests).toHaveLength(1);
    now += 25 * 60 * 60 * 1000;
    await client.check('DE136695976');
    expect(vies.requests).toHaveLength(2);
  });

  it('reports an outage, an error status, a timeout and a member state down as unavailable, and keeps none', async () => {
    const client = new ViesClient(url, 300);
    vies.handler = (_body, response) => json(response, 500, {});
    expect(await client.check('DE136695976')).toBe('unavailable');
    vies.handler = (_body, response) =>
      json(response, 200, { valid: false, userError: 'MS_UNAVAILABLE' });
    expect(await client.check('DE136695976')).toBe('unavailable');
    vies.handler = (_body, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('not json');
    };
    expect(await client.check('DE136695976')).toBe('unavailable');
    // No answer at all: the timeout ends the wait.
    vies.handler = () => undefined;
    const started = Date.now();
    expect(await client.check('DE136695976')).toBe('unavailable');
    expect(Date.now() - started).toBeLessThan(2000);
    expect(vies.requests).toHaveLength(4);
    // Nothing closed at the address: refused connections too.
    const closed = new ViesClient('http://127.0.0.1:9', 300);
    expect(await closed.check('DE136695976')).toBe('unavailable');
  });

  it('lets the engine refuse a number VIES does not know and fall back to the offline check when VIES is down', async () => {
    const engine = new TaxEngine(
      new BuiltinTaxProvider(),
      { money: { taxRates: {}, taxInclusive: false } } as unknown as AppConfig,
      new ViesClient(url, 300),
    );
    vies.handler = (_body, response) => json(response, 200, { valid: false });
    expect(await engine.verify('DE', 'DE 136 695 976')).toBe('invalid');
    // A number failing the offline check is never sent.
    expect(await engine.verify('DE', 'DE123456789')).toBe('invalid');
    // UK numbers are not in VIES.
    expect(await engine.verify('GB', 'GB980780684')).toBe('valid');
    expect(vies.requests).toHaveLength(1);
    vies.handler = (_body, response) => json(response, 503, {});
    const check = await engine.verify('AT', 'ATU13585627');
    expect(check).toBe('valid_offline');
    const decision = await engine.decide({
      store: { country: 'FR', taxInclusive: null, taxRegistrations: null },
      country: 'AT',
      zip: null,
      state: null,
      taxNumber: 'ATU13585627',
      taxCode: 'eservice',
      refuseInvalidNumber: true,
      numberCheck: check,
    });
    expect(decision.tax).toBeNull();
    expect(decision.note).toContain('Reverse charge');
    expect(decision.evidence.taxNumberCheck).toBe('valid_offline');
    await expect(
      engine.decide({
        store: { country: 'FR', taxInclusive: null, taxRegistrations: null },
        country: 'DE',
        zip: null,
        state: null,
        taxNumber: 'DE136695976',
        taxCode: 'eservice',
        refuseInvalidNumber: true,
        numberCheck: 'invalid',
      }),
    ).rejects.toMatchObject({ errors: [{ code: 'invalid_vat_number' }] });
  });
});
