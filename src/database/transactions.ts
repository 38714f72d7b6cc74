import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

const RETRYABLE_CODES = new Set([
  '40001', // serialization_failure
  '40P01', // deadlock_detected
]);
const MAX_ATTEMPTS = 3;

function isRetryable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && RETRYABLE_CODES.has(code);
}

/**
 * The one way use cases open a transaction. A deadlock or serialization
 * failure rolls the whole unit back and runs it again, so `work` must not
 * have side effects outside the database (queue jobs go through the outbox).
 */
@Injectable()
export class Transactions {
  constructor(private readonly dataSource: DataSource) {}

  async run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.dataSource.transaction(work);
      } catch (error) {
        if (attempt >= MAX_ATTEMPTS || !isRetryable(error)) throw error;
      }
    }
  }
}
