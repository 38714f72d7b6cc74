import { AppError } from '../../common/app-error';
import { IntegerIdPipe } from './integer-id.pipe';

describe('IntegerIdPipe', () => {
  it.each([
    ['1', 1],
    ['42', 42],
    ['2147483647', 2147483647],
  ])('passes the id %j on as %d', (raw, id) => {
    expect(new IntegerIdPipe().transform(raw)).toBe(id);
  });

  it.each(['0', '01', 'abc', '1.5', '-1', '1e3', '2147483648', ''])(
    'answers 404 for %j',
    (raw) => {
      let thrown: unknown;
      try {
        new IntegerIdPipe().transform(raw);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(AppError);
      expect((thrown as AppError).status).toBe(404);
    },
  );

  it('throws the 404 it was made with', () => {
    const notFound = () =>
      AppError.notFound('This subscription does not exist.', 'x_not_found');
    expect(() => new IntegerIdPipe(notFound).transform('x')).toThrow(
      'This subscription does not exist.',
    );
  });
});
