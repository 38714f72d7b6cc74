const UNITS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/**
 * Parses a list of durations such as `5s,25s,125s,1h*23` into milliseconds.
 * Units ms, s, m, h, d (a bare number is seconds); `*N` repeats an entry N times.
 */
export function parseDurationList(value: string): number[] {
  const result: number[] = [];
  for (const part of value.split(',').map((p) => p.trim())) {
    if (part === '') continue;
    const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?(?:\*(\d{1,4}))?$/.exec(part);
    if (!match) {
      throw new Error(
        `"${part}" is not a duration such as 500ms, 5s, 2m, 1h, 1d or 1h*23`,
      );
    }
    const ms = Math.round(Number(match[1]) * UNITS[match[2] ?? 's']);
    const times = match[3] === undefined ? 1 : Number(match[3]);
    for (let i = 0; i < times; i++) result.push(ms);
  }
  return result;
}
