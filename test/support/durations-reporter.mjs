/**
 * Prints the ten slowest test files of a run (wall time per file, set-up
 * and teardown included). With TEST_DURATIONS_FILE set (e.g.
 * `TEST_DURATIONS_FILE=test/durations.json`), also merges every file's
 * duration into that JSON file, which slowest-first-sequencer.mjs reads.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';

export default class DurationsReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
  }

  onRunComplete(_contexts, results) {
    const files = results.testResults
      .filter((result) => !result.skipped && result.perfStats.end > 0)
      .map((result) => ({
        path: relative(this.rootDir, result.testFilePath),
        ms: result.perfStats.end - result.perfStats.start,
      }))
      .sort((a, b) => b.ms - a.ms);
    if (files.length === 0) return;
    const lines = files
      .slice(0, 10)
      .map(
        ({ path, ms }) => `  ${(ms / 1000).toFixed(1).padStart(6)} s  ${path}`,
      );
    process.stderr.write(`\nSlowest test files:\n${lines.join('\n')}\n`);
    const out = process.env.TEST_DURATIONS_FILE;
    if (!out) return;
    const all = existsSync(out) ? JSON.parse(readFileSync(out, 'utf8')) : {};
    for (const { path, ms } of files) all[path] = ms;
    const sorted = Object.fromEntries(
      Object.entries(all).sort(([a], [b]) => (a < b ? -1 : 1)),
    );
    writeFileSync(out, `${JSON.stringify(sorted, null, 2)}\n`);
  }
}
