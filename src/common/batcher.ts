interface Waiting<I, O> {
  input: I;
  resolve(output: O): void;
  reject(error: unknown): void;
}

/**
 * Runs concurrent calls as batches, one batch at a time: a call made while
 * no batch runs starts one at the end of the current event-loop turn; calls
 * made while one runs wait and go together in the next. Under load the
 * batches grow by themselves, and one statement serves many callers; alone,
 * a call costs what it did. A failed batch fails each of its calls, unless
 * `isolate` accepts its error: then each call runs again alone, so an error
 * that one call's input caused reaches only that call (`isolate` must accept
 * only errors after which the batch is known to have changed nothing).
 */
export class Batcher<I, O> {
  private waiting: Waiting<I, O>[] = [];
  private running = false;

  /** `run` answers each input, in the order given. */
  constructor(
    private readonly run: (inputs: I[]) => Promise<O[]>,
    private readonly maxSize = 100,
    private readonly isolate: (error: unknown) => boolean = () => false,
  ) {}

  call(input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.waiting.push({ input, resolve, reject });
      if (!this.running) {
        this.running = true;
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0, this.maxSize);
      try {
        const outputs = await this.run(batch.map((call) => call.input));
        batch.forEach((call, i) => call.resolve(outputs[i]));
      } catch (error) {
        if (batch.length > 1 && this.isolate(error)) {
          await Promise.all(
            batch.map((call) =>
              this.run([call.input]).then(
                ([output]) => call.resolve(output),
                (error: unknown) => call.reject(error),
              ),
            ),
          );
        } else {
          for (const call of batch) call.reject(error);
        }
      }
    }
    this.running = false;
  }
}
