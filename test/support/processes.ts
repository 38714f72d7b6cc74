import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import { join } from 'node:path';
import { freePort } from './test-app';

/** A built entrypoint (`node dist/<name>.js`) running as its own process, as the Docker images run it. */
export interface ZestProcess {
  child: ChildProcess;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** stdout and stderr so far, for failure messages. */
  output(): string;
}

export function spawnZest(
  entrypoint: 'main' | 'worker' | 'cli',
  env: Record<string, string>,
  args: string[] = [],
): ZestProcess {
  const child = spawn(
    process.execPath,
    [join(process.cwd(), 'dist', `${entrypoint}.js`), ...args],
    {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  return { child, exited, output: () => output };
}

/** Runs a CLI command to completion and parses its `--json` output. */
export async function runCli(
  env: Record<string, string>,
  args: string[],
): Promise<Record<string, unknown>> {
  const cli = spawnZest('cli', env, [...args, '--json']);
  const code = await cli.exited;
  if (code !== 0)
    throw new Error(`cli ${args.join(' ')} exited ${code}: ${cli.output()}`);
  const lines = cli.output().trim().split('\n');
  return JSON.parse(lines[lines.length - 1]) as Record<string, unknown>;
}

/** A test-mode API key for `userId`, made with the CLI as an operator would. */
export async function createTestKeyByCli(
  env: Record<string, string>,
  userId: unknown,
  name: string,
): Promise<{ id: number; key: string }> {
  const created = await runCli(env, [
    'api-keys:create',
    '--user',
    String(userId),
    '--mode',
    'test',
    '--name',
    name,
  ]);
  return { id: created.id as number, key: created.key as string };
}

/** Polls `check` until it returns a value other than undefined. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Waits until GET `url` answers 200; fails at once if the process exits. */
export async function waitForReady(
  zest: ZestProcess,
  url: string,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (zest.child.exitCode !== null)
      throw new Error(
        `exited (${zest.child.exitCode}) before ${url} was ready:\n${zest.output()}`,
      );
    const status = await fetch(url).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) return;
    if (Date.now() > deadline)
      throw new Error(`${url} not ready in time:\n${zest.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * `node dist/worker.js` with `env` and a health port of its own, once it
 * reports ready (its processors have started and reach the database and
 * queue). Killed if it never does.
 */
export async function startZestWorker(
  env: Record<string, string>,
): Promise<ZestProcess> {
  const healthPort = await freePort();
  const worker = spawnZest('worker', {
    ...env,
    HEALTH_PORT: String(healthPort),
  });
  try {
    await waitForReady(worker, `http://127.0.0.1:${healthPort}/health/ready`);
  } catch (error) {
    worker.child.kill('SIGKILL');
    throw error;
  }
  return worker;
}

/** SIGTERM, then the exit code. */
export async function terminate(zest: ZestProcess): Promise<number | null> {
  if (zest.child.exitCode !== null) return zest.child.exitCode;
  zest.child.kill('SIGTERM');
  return zest.exited;
}

/** SIGKILL, as a crash (no shutdown hooks run); resolves once the process is gone. */
export async function killProcess(child: ChildProcess | null): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}

/** Resolves once something accepts connections on the loopback `port`. */
export async function waitForPort(port: number): Promise<void> {
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * A throwaway `redis-server` without persistence on a loopback port, never
 * the shared one: tests stop it to cut Redis off, losing its data.
 */
export async function startRedisServer(port: number): Promise<ChildProcess> {
  const redis = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
    ],
    { stdio: 'ignore' },
  );
  await waitForPort(port);
  return redis;
}
