/** A function wrapped by `throttle`. */
export interface Throttled {
  /** Runs the function now, or once at the end of the current interval. */
  call(): void;
  /** Drops a run still waiting for its interval to end. */
  cancel(): void;
}

/**
 * Runs `fn` at most once every `everyMs`, and never later than `everyMs`
 * after a call: the first call runs at once; calls in the interval that
 * follows are served by one run at its end, which comes after each of them.
 */
export function throttle(everyMs: number, fn: () => void): Throttled {
  let lastRun = -Infinity;
  let timer: NodeJS.Timeout | null = null;
  const run = () => {
    timer = null;
    lastRun = Date.now();
    fn();
  };
  return {
    call() {
      if (timer) return;
      const wait = lastRun + everyMs - Date.now();
      if (wait <= 0) run();
      else timer = setTimeout(run, wait);
    },
    cancel() {
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
