import { Writable } from 'node:stream';
import pino from 'pino';
import { QueryFailedError } from 'typeorm';
import type { AppConfig } from '../config/app-config';
import { loggerParams, redactUrl, withQuietStartUp } from './logging';

describe('redactUrl', () => {
  it.each([
    ['/v1/stores', '/v1/stores'],
    [
      '/v1/orders?filter%5Bstore_id%5D=1&page%5Bnumber%5D=2&page[size]=10&sort=-created_at&include=store%2Ccustomer',
      '/v1/orders?filter%5Bstore_id%5D=1&page%5Bnumber%5D=2&page[size]=10&sort=-created_at&include=store%2Ccustomer',
    ],
    [
      '/r/abc?expires=1&signature=deadbeef',
      '/r/abc?expires=[Redacted]&signature=[Redacted]',
    ],
    ['/v1/stores?api_key=zest_test_abc', '/v1/stores?api_key=[Redacted]'],
    [
      '/v1/stores?key=x&token=y&access_token=z',
      '/v1/stores?key=[Redacted]&token=[Redacted]&access_token=[Redacted]',
    ],
    ['/v1/stores?sort=zest_live_abc', '/v1/stores?sort=[Redacted]'],
    ['/v1/stores?zest_live_abc', '/v1/stores?[Redacted]=[Redacted]'],
    [
      '/v1/orders?filter[user_email]=ada@example.com',
      '/v1/orders?filter[user_email]=[Redacted]',
    ],
    [
      '/v1/customers?filter%5Bemail%5D=ada%40example.com',
      '/v1/customers?filter%5Bemail%5D=[Redacted]',
    ],
    [
      '/v1/orders/1/generate-invoice?name=Ada&address=1%20Main&city=X&zip_code=1&country=US&notes=hi',
      '/v1/orders/1/generate-invoice?name=[Redacted]&address=[Redacted]&city=[Redacted]&zip_code=[Redacted]&country=[Redacted]&notes=[Redacted]',
    ],
    ['/v1/stores?filter[__proto__]=1', '/v1/stores?filter[__proto__]=1'],
  ])('%s', (url, logged) => {
    expect(redactUrl(url)).toBe(logged);
  });
});

describe('loggerParams', () => {
  it('keeps the values of a failed query out of an error log line', () => {
    const { pinoHttp } = loggerParams({ logLevel: 'info' } as AppConfig);
    const lines: string[] = [];
    const logger = pino(
      { redact: (pinoHttp as pino.LoggerOptions).redact },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(chunk.toString());
          done();
        },
      }),
    );
    const driverError = Object.assign(
      new Error('duplicate key value violates unique constraint "c"'),
      {
        code: '23505',
        detail: 'Key (email)=(ada@example.com) already exists.',
      },
    );
    const error = new QueryFailedError(
      'INSERT INTO customers (name, email) VALUES ($1, $2)',
      ['Ada Lovelace', 'ada@example.com'],
      driverError,
    );
    logger.error({ err: error, requestId: 'r1' }, 'Unhandled error');
    logger.error(
      { err: new Error('Wrapped', { cause: error }) },
      'Unhandled error',
    );
    const written = lines.join('');
    expect(written).toContain('duplicate key value violates unique constraint');
    expect(written).toContain('23505');
    expect(written).not.toContain('Ada Lovelace');
    expect(written).not.toContain('ada@example.com');
  });
});

describe('withQuietStartUp', () => {
  it("moves Nest's module and route lines to debug and keeps the rest", () => {
    const calls: string[] = [];
    const record =
      (level: string) =>
      (message: unknown, ...optional: unknown[]) =>
        calls.push(`${level} ${String(optional.at(-1))} ${String(message)}`);
    const logger = withQuietStartUp({
      log: record('log'),
      error: record('error'),
      warn: record('warn'),
      debug: record('debug'),
    });
    logger.log('Mapped {/v1/stores, GET} route', 'RouterExplorer');
    logger.log('StoreController {/v1/stores}:', 'RoutesResolver');
    logger.log('CoreModule dependencies initialized', 'InstanceLoader');
    logger.log('API listening', 'Zest');
    logger.warn('careful', 'Zest');
    expect(calls).toEqual([
      'debug RouterExplorer Mapped {/v1/stores, GET} route',
      'debug RoutesResolver StoreController {/v1/stores}:',
      'debug InstanceLoader CoreModule dependencies initialized',
      'log Zest API listening',
      'warn Zest careful',
    ]);
  });
});
