import { IsOptional, IsString, Length } from 'class-validator';
import { thrownAppError } from '../../../test/support/app-error';
import { parseWriteDocument } from './write-document';

class Attributes {
  @IsString()
  @Length(1, 50)
  name: string;

  @IsOptional()
  @IsString()
  city?: string;
}

const rules = {
  type: 'customers',
  attributes: Attributes,
  relationships: { store: { type: 'stores', required: true } },
};

describe('parseWriteDocument', () => {
  it('returns validated attributes and relationship ids', () => {
    const document = parseWriteDocument(
      {
        data: {
          type: 'customers',
          attributes: { name: 'Ann' },
          relationships: { store: { data: { type: 'stores', id: '3' } } },
        },
      },
      rules,
    );
    expect(document.attributes).toEqual({ name: 'Ann' });
    expect(document.relationships).toEqual({ store: '3' });
  });

  it.each([
    [null, 400],
    [{}, 400],
    [{ data: [] }, 400],
    [{ data: { type: 'orders', attributes: {} } }, 400],
    [{ data: { type: 'customers', attributes: [] } }, 400],
  ])('refuses the shape %p with %i', (body, status) => {
    expect(thrownAppError(() => parseWriteDocument(body, rules)).status).toBe(
      status,
    );
  });

  it('gives one 422 per invalid or unknown attribute with a pointer', () => {
    const error = thrownAppError(() =>
      parseWriteDocument(
        {
          data: {
            type: 'customers',
            attributes: { name: 5, shoe_size: 9 },
            relationships: { store: { data: { type: 'stores', id: '1' } } },
          },
        },
        rules,
      ),
    );
    expect(error.status).toBe(422);
    const pointers = error.errors
      .map((e) => (e.source as { pointer: string }).pointer)
      .sort();
    expect(pointers).toEqual([
      '/data/attributes/name',
      '/data/attributes/shoe_size',
    ]);
  });

  it('requires required relationships and checks their type', () => {
    expect(
      thrownAppError(() =>
        parseWriteDocument(
          { data: { type: 'customers', attributes: { name: 'A' } } },
          rules,
        ),
      ).status,
    ).toBe(422);
    const wrongType = thrownAppError(() =>
      parseWriteDocument(
        {
          data: {
            type: 'customers',
            attributes: { name: 'A' },
            relationships: { store: { data: { type: 'users', id: '1' } } },
          },
        },
        rules,
      ),
    );
    expect(wrongType.status).toBe(400);
  });

  it('answers 409 when a PATCH id differs from the path', () => {
    const update = { type: 'customers', attributes: Attributes, update: true };
    const error = thrownAppError(() =>
      parseWriteDocument(
        { data: { type: 'customers', id: '2', attributes: { name: 'A' } } },
        update,
        '3',
      ),
    );
    expect(error.status).toBe(409);
    expect(
      parseWriteDocument(
        { data: { type: 'customers', id: '3', attributes: { name: 'A' } } },
        update,
        '3',
      ).id,
    ).toBe('3');
  });
});
