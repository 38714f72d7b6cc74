/**
 * Timestamps on the wire: `YYYY-MM-DDTHH:MM:SS.ffffffZ`, as the reference API
 * sends them. JavaScript dates carry milliseconds, so the last three digits of
 * the microseconds are always zero.
 */
export function formatTimestamp(date: Date): string;
export function formatTimestamp(date: Date | null | undefined): string | null;
export function formatTimestamp(date: Date | null | undefined): string | null {
  if (!date) return null;
  // toISOString() always ends in `.mmmZ`; a slice is cheaper than a regex.
  return `${date.toISOString().slice(0, -1)}000Z`;
}

const ISO_TIMESTAMP =
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

/** Parses an ISO 8601 date-time with a zone; null when it is not one. */
export function parseTimestamp(value: unknown): Date | null {
  if (typeof value !== 'string' || !ISO_TIMESTAMP.test(value)) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}
