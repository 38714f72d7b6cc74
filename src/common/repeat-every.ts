/** A task started by `repeatEvery`. */
export interface RepeatingTask {
  /** Settles when the first run has finished (it never rejects). */
  first: Promise<void>;
  stop(): void;
}

/**
 * Runs `task` now and then every `everyMs` until stopped. A failed run goes
 * to `onError` and the next run still happens. The timer is unref'd: a
 * periodic sweep never holds a process open on shutdown.
 */
export function repeatEvery(
  everyMs: number,
  task: () => Promise<unknown>,
  onError: (error: unknown) => void,
): RepeatingTask {
  const run = () =>
    task().then(
      () => undefined,
      (error: unknown) => {
        onError(error);
      },
    );
  const first = run();
  const timer = setInterval(() => void run(), everyMs);
  timer.unref();
  return { first, stop: () => clearInterval(timer) };
}
