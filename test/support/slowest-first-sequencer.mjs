/**
 * Runs the slowest test files first, so no worker is left with a long file
 * at the end of the run. A file's duration is Jest's own record from the
 * last run on this machine (its cache directory) or, on a machine without
 * one, the checked-in test/durations.json (written by durations-reporter.mjs);
 * files known to neither go first, largest first, as Jest's default order
 * does. A file that failed last time still goes first of all.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import TestSequencerModule from '@jest/test-sequencer';

const TestSequencer = TestSequencerModule.default ?? TestSequencerModule;

function checkedIn(rootDir) {
  try {
    return JSON.parse(
      readFileSync(join(rootDir, 'test', 'durations.json'), 'utf8'),
    );
  } catch {
    return {};
  }
}

export default class SlowestFirstSequencer extends TestSequencer {
  durations = new Map();

  time(test) {
    const cached = super.time(test);
    if (cached !== undefined) return cached;
    const { rootDir } = test.context.config;
    if (!this.durations.has(rootDir))
      this.durations.set(rootDir, checkedIn(rootDir));
    return this.durations.get(rootDir)[relative(rootDir, test.path)];
  }
}
