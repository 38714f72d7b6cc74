import { NotFoundException } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../common/app-error';
import { PlainJsonError } from '../../common/plain-json-error';
import { RouteTable } from '../json-api/route-table';
import { renderPlainJsonError } from './plain-json-errors';

const ACTIVATE = { kind: 'plain-json', outcome: 'activated' } as const;

describe('error formats', () => {
  const routes = new RouteTable();
  routes.add('POST', '/v1/licenses/activate', { errorFormat: ACTIVATE });
  routes.add('GET', '/portal/customers/:id', { errorFormat: { kind: 'html' } });
  routes.add(['GET', 'HEAD'], '/v1/products/:id', { url: '/v1/products/:id' });
  const request = (method: string, url: string) =>
    ({ method, url }) as FastifyRequest;
  const render = (exception: unknown) =>
    renderPlainJsonError(
      exception,
      request('POST', '/v1/licenses/activate'),
      routes,
      'activated',
    );

  it('keeps each route’s declared format for requests at its path', () => {
    expect(routes.errorFormatAt('/v1/licenses/activate/?x=1')).toEqual(
      ACTIVATE,
    );
    expect(routes.errorFormatAt('/portal/customers/7')).toEqual({
      kind: 'html',
    });
    expect(routes.errorFormatAt('/v1/products/7')).toEqual({
      kind: 'json-api',
    });
    expect(routes.errorFormatAt('/nowhere')).toEqual({ kind: 'json-api' });
  });

  it('answers a plain-JSON path with another method with 405 and Allow', () => {
    expect(
      renderPlainJsonError(
        new NotFoundException(),
        request('GET', '/v1/licenses/activate'),
        routes,
        'activated',
      ),
    ).toEqual({
      status: 405,
      code: 'method_not_allowed',
      headers: { allow: 'POST' },
      body: { activated: false, error: 'Use POST for this endpoint.' },
    });
  });

  it('sends a plain-JSON refusal as is, an AppError as its message', () => {
    const body = { activated: false, error: 'license_key not found' };
    expect(
      render(new PlainJsonError(404, body, 'license_key_not_found')),
    ).toEqual({
      status: 404,
      code: 'license_key_not_found',
      headers: {},
      body,
    });
    expect(
      render(new AppError(429, 'Slow down.', { 'retry-after': '5' })),
    ).toEqual({
      status: 429,
      code: 'rate_limited',
      headers: { 'retry-after': '5' },
      body: { activated: false, error: 'Slow down.' },
    });
  });

  it('answers framework refusals by status and hides unexpected errors', () => {
    const tooLarge = Object.assign(new Error('too large'), { statusCode: 413 });
    expect(render(tooLarge).body).toEqual({
      activated: false,
      error: 'Payload Too Large',
    });
    expect(render(new Error('secret detail'))).toEqual({
      status: 500,
      code: 'internal_error',
      headers: {},
      body: {
        activated: false,
        error: 'Something went wrong on our side. The error has been logged.',
      },
    });
  });
});
