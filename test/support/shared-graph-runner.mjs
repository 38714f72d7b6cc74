/**
 * Jest runner for the e2e project: each worker is a plain Node process
 * (shared-graph-worker.mjs) that runs its share of the files one after
 * another, in slowest-first order as the sequencer gave them. Jest's
 * default runner evaluates every module a file imports again in a new vm
 * context per file, without V8's code cache: about 4.7 CPU-s per e2e file
 * for the app's graph alone (docs/performance.md, sessions 16 and 17).
 * Here a worker loads that graph once. A worker that dies fails the file it
 * was running and is replaced; one that has grown past WORKER_RSS_LIMIT is
 * replaced between files. When the run ends the workers are told to exit
 * (and killed if they do not), as `forceExit` does for the default runner.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const WORKER = fileURLToPath(
  new URL('./shared-graph-worker.mjs', import.meta.url),
);
const WORKER_RSS_LIMIT = 2 * 1024 ** 3;

class Worker {
  constructor(id, globalConfig) {
    this.globalConfig = globalConfig;
    this.rss = 0;
    this.dead = false;
    this.child = fork(WORKER, [], {
      env: { ...process.env, JEST_WORKER_ID: String(id) },
      execArgv: [],
      serialization: 'advanced',
      stdio: 'inherit',
    });
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => {
        this.dead = true;
        resolve({ code, signal });
      }),
    );
    // A send to a worker that has just died is reported by its exit.
    this.child.on('error', () => undefined);
  }

  run(test) {
    return new Promise((resolve, reject) => {
      const onExit = (code, signal) => {
        this.child.off('message', onMessage);
        reject(
          new Error(
            `The test worker exited (code ${code}, signal ${signal}) while running this file`,
          ),
        );
      };
      const onMessage = (message) => {
        if (message.type === 'ready') return;
        this.child.off('message', onMessage);
        this.child.off('exit', onExit);
        if (message.type === 'result') {
          this.rss = message.rss;
          resolve(message.result);
        } else reject(message.error);
      };
      this.child.on('message', onMessage);
      this.child.once('exit', onExit);
      this.child.send({
        type: 'run',
        testPath: test.path,
        config: test.context.config,
        globalConfig: this.globalConfig,
      });
    });
  }

  async stop() {
    if (!this.dead) this.child.send({ type: 'exit' });
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    await this.exited;
    clearTimeout(timer);
  }
}

export default class SharedGraphRunner {
  #globalConfig;

  constructor(globalConfig) {
    this.#globalConfig = globalConfig;
  }

  async runTests(tests, watcher, onStart, onResult, onFailure, options) {
    const queue = [...tests];
    const workers = options.serial
      ? 1
      : Math.max(1, Math.min(this.#globalConfig.maxWorkers, queue.length));
    const drain = async (id) => {
      let worker;
      try {
        while (queue.length > 0 && !watcher.isInterrupted()) {
          const test = queue.shift();
          if (!worker || worker.dead)
            worker = new Worker(id, this.#globalConfig);
          await onStart(test);
          try {
            await onResult(test, await worker.run(test));
          } catch (error) {
            await onFailure(test, error);
          }
          if (worker.rss > WORKER_RSS_LIMIT) {
            await worker.stop();
            worker = undefined;
          }
        }
      } finally {
        await worker?.stop();
      }
    };
    await Promise.all(
      Array.from({ length: workers }, (_, index) => drain(index + 1)),
    );
  }
}
