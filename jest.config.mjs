/**
 * Unit specs sit beside the code; e2e specs under test/ run over HTTP against
 * a real database. NestJS 12 ships as ES modules, which Jest can
 * only load in its ESM mode (`--experimental-vm-modules`), so specs are
 * compiled as ES modules too.
 */
import { swcOptions } from './test/support/swc-options.mjs';

const shared = {
  testEnvironment: 'node',
  rootDir: '.',
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', swcOptions] },
};

export default {
  testTimeout: 60000,
  // Slowest files first (by the last run's durations); the ten slowest of
  // each run are printed at its end.
  testSequencer: '<rootDir>/test/support/slowest-first-sequencer.mjs',
  reporters: ['default', '<rootDir>/test/support/durations-reporter.mjs'],
  // Tests that kill and restart Redis can leave a BullMQ client parked in
  // ioredis' socketless "reconnecting" state, whose close never resolves
  // (upstream: taskforcesh/bullmq#4656, fix pending in #4676). Jest would
  // then wait for it forever after the last test. In production the
  // process's SHUTDOWN_TIMEOUT_MS bounds the same close.
  forceExit: true,
  projects: [
    {
      ...shared,
      displayName: 'unit',
      testMatch: ['<rootDir>/src/**/*.spec.ts'],
    },
    {
      ...shared,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      // Plain Node workers that load the app's modules once and run their
      // share of the files one after another (see the runner's comment).
      runner: '<rootDir>/test/support/shared-graph-runner.mjs',
      // Every response of the suite is checked against the OpenAPI document.
      setupFilesAfterEnv: ['<rootDir>/test/support/contract-setup.ts'],
    },
  ],
};
