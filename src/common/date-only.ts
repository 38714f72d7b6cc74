const pad = (n: number) => String(n).padStart(2, '0');

/**
 * A PostgreSQL `date` as `YYYY-MM-DD`, for a TypeORM column transformer.
 * node-postgres reads a `date` as a Date at local midnight (the hand-written
 * reads get that), TypeORM's own reads as the string; both come out as the
 * string.
 */
export const dateOnly = {
  to: (value: string | null | undefined) => value,
  from: (value: Date | string | null): string | null =>
    value instanceof Date
      ? `${value.getFullYear()}-${pad(value.getMonth() + 1)}-${pad(value.getDate())}`
      : value,
};
