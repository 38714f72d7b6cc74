export const IDEMPOTENCY_PURGE_QUEUE = 'idempotency-purge';
/** The job scheduler's id: upserting it again on every worker start is a no-op. */
export const IDEMPOTENCY_PURGE_SCHEDULER = 'purge-expired-idempotency-keys';
export const IDEMPOTENCY_PURGE_EVERY_MS = 60 * 60 * 1000;
