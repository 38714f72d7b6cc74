/**
 * A worker process of shared-graph-runner.mjs: runs the test files it is
 * sent one after another in this one Node process, so the modules they
 * import (the app's graph of some 3,500 modules) are loaded and compiled
 * once per worker instead of once per file. Each file still gets a fresh
 * jest-circus state (describe/it/hooks, per-test timeouts, `.each`,
 * `expect`), run by jest-circus's own adapter (`jest-circus/runner`), and
 * its own copy of `process.env`; what the files share is module state.
 */
import './typescript-hooks.mjs';
import { enableCompileCache, createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

process.setSourceMapsEnabled(true);
enableCompileCache();

const require = createRequire(import.meta.url);
const { default: jestAdapter } = require('jest-circus/runner');

// jest-circus keeps its state and event handlers on the global object; the
// default runner gets a new global per file, so the adapter's state is
// dropped and the adapter loaded afresh for every file here.
function dropCircusState() {
  delete globalThis[Symbol.for('EVENT_HANDLERS')];
  for (const symbol of Object.getOwnPropertySymbols(globalThis)) {
    if (symbol.description === 'JEST_STATE_SYMBOL') delete globalThis[symbol];
  }
}

let setupRun = 0;

async function runFile(testPath, config, globalConfig) {
  const setupFiles = new Set(config.setupFilesAfterEnv);
  const suffix = `?file=${++setupRun}`;
  const runtime = {
    requireInternalModule(path) {
      dropCircusState();
      delete require.cache[path];
      return require(path);
    },
    requireModule: (path) => require(path),
    setGlobalsForRuntime() {},
    unstable_shouldLoadAsEsm: () => true,
    // Setup files register hooks (contract-setup's afterEach) into the
    // file's circus state, so they are evaluated again for every file.
    unstable_importModule: (path) =>
      import(pathToFileURL(path).href + (setupFiles.has(path) ? suffix : '')),
    enterTestCode() {},
    leaveTestCode() {},
  };
  const environment = { global: globalThis };
  return jestAdapter(globalConfig, config, environment, runtime, testPath);
}

async function run({ testPath, config, globalConfig }) {
  const env = { ...process.env };
  const start = Date.now();
  try {
    const result = await runFile(testPath, config, globalConfig);
    const end = Date.now();
    const testCount =
      result.numPassingTests +
      result.numFailingTests +
      result.numPendingTests +
      result.numTodoTests;
    result.perfStats = {
      ...result.perfStats,
      start,
      end,
      runtime: end - start,
      slow: (end - start) / 1000 > config.slowTestThreshold,
    };
    result.testFilePath = testPath;
    result.skipped = testCount === result.numPendingTests;
    result.displayName = config.displayName;
    result.leaks = false;
    process.send({
      type: 'result',
      result,
      rss: process.memoryUsage().rss,
    });
  } catch (error) {
    process.send({
      type: 'error',
      error: {
        message: error instanceof Error ? error.message : String(error),
        stack: error instanceof Error ? error.stack : undefined,
      },
    });
  } finally {
    dropCircusState();
    for (const key of Object.keys(process.env))
      if (!(key in env)) delete process.env[key];
    Object.assign(process.env, env);
  }
}

process.on('message', (message) => {
  if (message.type === 'exit') process.exit(0);
  if (message.type === 'run') void run(message);
});

process.send({ type: 'ready' });
