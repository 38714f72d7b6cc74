import { ChildProcess, fork, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { API_NODE_ARGS, ROOT, zestEnv } from './options';

/** Every process the bench started and that still runs (stopped at the end). */
export const children = new Set<ChildProcess>();

export function log(message: string) {
  process.stderr.write(`[bench] ${message}\n`);
}

export function start(
  name: string,
  script: string,
  env: Record<string, string>,
  ipc = false,
  nodeArgs: string[] = [],
): ChildProcess {
  const child = ipc
    ? fork(script, [], { env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    : spawn(process.execPath, [...nodeArgs, script], {
        env,
        stdio: ['ignore', 'inherit', 'inherit'],
      });
  children.add(child);
  child.once('exit', (code, signal) => {
    children.delete(child);
    if (code !== 0 && signal === null) log(`${name} exited with ${code}`);
  });
  return child;
}

/** A second API process on `port` for one scenario, once it answers. */
export async function startExtraApi(
  name: string,
  port: number,
  extra: Record<string, string>,
): Promise<ChildProcess> {
  const child = start(
    name,
    join(ROOT, 'dist', 'main.js'),
    zestEnv(port, extra),
    false,
    API_NODE_ARGS,
  );
  await waitFor(`http://127.0.0.1:${port}/health/live`);
  return child;
}

export async function stop(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  await exited;
}

export async function waitFor(url: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const response = await fetch(url);
      if (response.status < 500) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not come up`);
    await sleep(200);
  }
}

export const sleep = (ms: number) =>
  new Promise((done) => setTimeout(done, ms));

export function message<T>(child: ChildProcess, type?: string): Promise<T> {
  return new Promise((done, fail) => {
    const onMessage = (value: T & { type?: string }) => {
      if (type && value.type !== type) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      done(value);
    };
    const onExit = (code: number) =>
      fail(new Error(`child exited (${code}) before answering`));
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/** Resident set size now and the high-water mark, in MiB, from /proc. */
export function memory(pid: number | undefined): { rss: number; hwm: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string) =>
      Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
    return { rss: field('VmRSS'), hwm: field('VmHWM') };
  } catch {
    return { rss: 0, hwm: 0 };
  }
}

/**
 * CPU time (user + system) a process has used so far, in ms, from
 * /proc/<pid>/stat (clock ticks of 10 ms, Linux's USER_HZ); NaN when it
 * cannot be read.
 */
export function processCpuMs(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command name, which may hold spaces: state is
    // field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

/** The machine's CPU time so far, in ticks: all of it and the stolen part. */
export function cpuTicks(): { total: number; steal: number } {
  const fields = readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]
    .trim()
    .split(/\s+/)
    .slice(1, 9)
    .map(Number);
  return { total: fields.reduce((a, b) => a + b, 0), steal: fields[7] ?? 0 };
}

/**
 * Steal since `from`, in percent: on a shared virtual machine it tells a slow
 * run from a slow build (the figures of one hour moved by 2× with it).
 */
export function stealSince(from: { total: number; steal: number }): number {
  const now = cpuTicks();
  const total = now.total - from.total;
  return total > 0 ? (100 * (now.steal - from.steal)) / total : 0;
}
