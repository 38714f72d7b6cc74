import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppError, GENERIC_CODES } from '../../common/app-error';
import { PlainJsonError } from '../../common/plain-json-error';
import { HttpErrorCodes } from './http-error-codes';

// Jest runs from the repository root (as the openapi test reads docs/).
const MODULES = join('src', 'modules');
const CODE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

/** Every `*.errors.ts` file under src/modules and src/common. */
function errorFiles(): string[] {
  const files = readdirSync(MODULES, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.errors.ts'))
    .map((file) => join(MODULES, file));
  return [...files, join('src', 'common', 'common.errors.ts')];
}

/**
 * The codes a value yields: an error, a refusal, a code constant, or a
 * factory called with placeholders.
 */
function codesOf(value: unknown): string[] {
  if (typeof value === 'string') return CODE.test(value) ? [value] : [];
  if (value instanceof AppError) return value.errors.map((e) => e.code);
  if (value instanceof PlainJsonError) return [value.code];
  if (typeof value === 'function') {
    const args = Array.from({ length: value.length }, (_, i) =>
      i === 0 ? 'name' : 1,
    );
    try {
      return codesOf((value as (...a: unknown[]) => unknown)(...args));
    } catch {
      return [];
    }
  }
  if (typeof value === 'object' && value !== null) {
    const code = (value as { code?: unknown }).code;
    if (typeof code === 'string') return [code];
    return Object.values(value).flatMap(codesOf);
  }
  return [];
}

describe('error codes', () => {
  const codes = new Set<string>([
    ...Object.values(GENERIC_CODES),
    ...Object.values(HttpErrorCodes),
  ]);

  beforeAll(async () => {
    for (const file of errorFiles()) {
      const exports = (await import(join('..', '..', '..', file))) as Record<
        string,
        unknown
      >;
      for (const value of Object.values(exports))
        for (const code of codesOf(value)) codes.add(code);
    }
  });

  it('are snake_case, and the modules’ factories yield them', () => {
    expect(codes.size).toBeGreaterThan(100);
    for (const code of codes) expect(code).toMatch(CODE);
    for (const code of [
      'discount_exhausted',
      'license_limit_reached',
      'variant_not_found',
      'invalid_attribute',
    ])
      expect(codes).toContain(code);
  });

  it('are each documented in the README', () => {
    const readme = readFileSync('README.md', 'utf8');
    const undocumented = [...codes].filter(
      (code) => !readme.includes(`\`${code}\``),
    );
    expect(undocumented).toEqual([]);
  });

  it('are thrown by modules through their errors files, not written inline', () => {
    const inline =
      /new AppError\(|AppError\.(unprocessable|badRequest|forbidden|unauthorized|conflict)\(|AppError\.notFound\(['`]/;
    const offenders = readdirSync(MODULES, {
      recursive: true,
      encoding: 'utf8',
    })
      .filter(
        (file) =>
          file.endsWith('.ts') &&
          !file.endsWith('.errors.ts') &&
          !file.endsWith('.spec.ts'),
      )
      .filter((file) => inline.test(readFileSync(join(MODULES, file), 'utf8')));
    expect(offenders).toEqual([]);
  });
});
