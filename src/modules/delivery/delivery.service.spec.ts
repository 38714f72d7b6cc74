import { AppError } from '../../common/app-error';
import { parseRange } from './delivery.service';

describe('parseRange', () => {
  it('reads one byte range, open-ended and suffix forms included', () => {
    expect(parseRange(1000, undefined)).toBeNull();
    expect(parseRange(1000, 'bytes=0-99')).toEqual({ start: 0, end: 99 });
    expect(parseRange(1000, 'bytes=900-')).toEqual({ start: 900, end: 999 });
    expect(parseRange(1000, 'bytes=-10')).toEqual({ start: 990, end: 999 });
    // Past the end is clipped, as RFC 9110 says.
    expect(parseRange(1000, 'bytes=990-5000')).toEqual({
      start: 990,
      end: 999,
    });
  });

  it('serves the whole file for what a download client does not mean', () => {
    expect(parseRange(1000, 'items=0-5')).toBeNull();
    expect(parseRange(1000, 'bytes=abc')).toBeNull();
    expect(parseRange(1000, 'bytes=0-9,20-29')).toBeNull();
  });

  it('answers 416 for a range outside the file', () => {
    let error: unknown;
    try {
      parseRange(1000, 'bytes=1000-');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).status).toBe(416);
    expect((error as AppError).headers).toEqual({
      'Content-Range': 'bytes */1000',
    });
    expect((error as AppError).errors[0].code).toBe('range_not_satisfiable');
  });
});
