/**
 * `npm run test:reliability`: hostile input, races, faults, replicas and
 * security checks (test/reliability/*.rel-spec.ts). Kept out of `npm test`
 * (minutes, not seconds; several files start their own processes); `.ci/run`
 * runs it against PostgreSQL and Redis. REL_RUNS sets the property-test case
 * count (200 by default).
 */
import base from './jest.config.mjs';

const [unit] = base.projects;

export default {
  testTimeout: 600000,
  // As in jest.config.mjs: fault tests kill and restart Redis.
  forceExit: base.forceExit,
  testSequencer: base.testSequencer,
  reporters: base.reporters,
  projects: [
    {
      ...unit,
      displayName: 'reliability',
      testMatch: ['<rootDir>/test/reliability/**/*.rel-spec.ts'],
    },
  ],
};
