import { AppError, genericCode, sourceOf } from './app-error';

describe('AppError', () => {
  it('gives every error a code: its own, or its status’s generic one', () => {
    expect(new AppError(422, 'Bad.').errors[0].code).toBe('validation_failed');
    expect(AppError.notFound().errors[0].code).toBe('not_found');
    expect(AppError.notFound('Gone.', 'thing_gone').errors[0].code).toBe(
      'thing_gone',
    );
    expect(AppError.attribute('name', 'Required.').errors[0]).toEqual({
      detail: 'Required.',
      field: 'name',
      code: 'invalid_attribute',
    });
    expect(
      new AppError(422, [{ detail: 'a', code: 'a_code' }, { detail: 'b' }])
        .codes,
    ).toEqual(['a_code', 'validation_failed']);
    expect(genericCode(418)).toBe('error');
    expect(genericCode(502)).toBe('internal_error');
  });

  it('names a related record’s code after its relationship', () => {
    expect(AppError.relatedNotFound('variant').errors[0]).toEqual({
      detail: 'The related resource does not exist.',
      relationship: 'variant',
      code: 'variant_not_found',
    });
    expect(AppError.relatedNotFound('subscription-item').errors[0].code).toBe(
      'subscription_item_not_found',
    );
  });

  it('turns a domain location into the JSON:API source', () => {
    const at = (location: object) => sourceOf({ detail: 'x', ...location });
    expect(at({ field: 'checkout_data/email' })).toEqual({
      pointer: '/data/attributes/checkout_data/email',
    });
    expect(at({ relationship: 'store' })).toEqual({
      pointer: '/data/relationships/store',
    });
    expect(at({ input: 'billing_address/zip' })).toEqual({
      pointer: '/billing_address/zip',
    });
    expect(at({ parameter: 'page[size]' })).toEqual({
      parameter: 'page[size]',
    });
    expect(at({ header: 'Idempotency-Key' })).toEqual({
      header: 'Idempotency-Key',
    });
    expect(at({ source: { pointer: '/data/id' } })).toEqual({
      pointer: '/data/id',
    });
    expect(at({})).toBeUndefined();
  });
});
