/** Parses a path id; null for anything that cannot be an integer id. */
export function parseIntegerId(raw: string): number | null {
  return /^[1-9]\d{0,9}$/.test(raw) && Number(raw) <= 2147483647
    ? Number(raw)
    : null;
}
