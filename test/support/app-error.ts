import { AppError } from '../../src/common/app-error';

/** The AppError that `fn` throws; fails the test when it throws nothing. */
export function thrownAppError(fn: () => unknown): AppError {
  try {
    fn();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected an AppError');
}
