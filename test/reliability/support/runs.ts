import { appendFileSync } from 'node:fs';

/** Property-test cases per property: REL_RUNS, 200 by default (the floor). */
export const RUNS = Number(process.env.REL_RUNS ?? 200);

/**
 * Prints a figure a test reached (docs/reliability.md quotes them) and, with
 * REL_FIGURES=<file>, appends it there as a JSON line.
 */
export function report(test: string, figure: string) {
  process.stdout.write(`[reliability] ${test}: ${figure}\n`);
  const file = process.env.REL_FIGURES;
  if (file) appendFileSync(file, `${JSON.stringify({ test, figure })}\n`);
}
