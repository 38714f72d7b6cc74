const SIZE_UNITS = ['B', 'KB', 'MB', 'GB', 'TB'];

/** A byte count for people: "512 B", "4.8 MB" (binary multiples, as file managers show). */
export function formatFileSize(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < SIZE_UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  const shown =
    unit === 0 ? String(value) : value.toFixed(1).replace(/\.0$/, '');
  return `${shown} ${SIZE_UNITS[unit]}`;
}

/** `published` → "Published", `last_during_period` → "Last during period". */
export function formatStatus(status: string): string {
  const words = status.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function slugify(name: string, fallback: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return slug || fallback;
}
