// Trial: the e2e project on test/support/shared-graph-runner.mjs.
import base from './jest.config.mjs';

export default {
  ...base,
  projects: base.projects.map((project) =>
    project.displayName === 'e2e'
      ? { ...project, runner: '<rootDir>/test/support/shared-graph-runner.mjs' }
      : project,
  ),
};
