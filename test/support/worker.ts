import { INestApplicationContext, LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { WorkerModule } from '../../src/app/worker.module';
import { TestApp } from './test-app';

export interface TestWorker {
  /** The process that runs the processors: a separate worker, or the embedded app itself. */
  context: INestApplicationContext;
  close(): Promise<void>;
}

/**
 * The processors for a test app. With a PostgreSQL server they run in a
 * worker context of their own (as `src/worker.ts` runs them); on the embedded
 * database the API app already runs them in-process, as `npm start` does.
 */
export async function startTestWorker(
  t: TestApp,
  logger?: LoggerService,
): Promise<TestWorker> {
  if (t.database.embedded) {
    return { context: t.app, close: () => Promise.resolve() };
  }
  const context = await NestFactory.createApplicationContext(
    WorkerModule.forRoot(t.config, t.database),
    { logger: logger ?? false },
  );
  if (logger) context.useLogger(logger);
  await context.init();
  return { context, close: () => context.close() };
}

/** A Nest logger that keeps every line, to check what reaches the logs. */
export class CapturingLogger implements LoggerService {
  readonly lines: string[] = [];

  private keep(level: string, args: unknown[]) {
    this.lines.push(
      `${level} ${args
        .map((a) =>
          a instanceof Error ? `${a.message} ${a.stack}` : JSON.stringify(a),
        )
        .join(' ')}`,
    );
  }

  log(...args: unknown[]) {
    this.keep('log', args);
  }
  error(...args: unknown[]) {
    this.keep('error', args);
  }
  warn(...args: unknown[]) {
    this.keep('warn', args);
  }
  debug(...args: unknown[]) {
    this.keep('debug', args);
  }
  verbose(...args: unknown[]) {
    this.keep('verbose', args);
  }
}
