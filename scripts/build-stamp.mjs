// When dist/ was last built from src/: a stamp file in dist/ dated when that
// build began, so a source saved during a build counts as newer. Shared by
// `npm start` (scripts/start.mjs) and `npm run build` / `npm test`
// (scripts/build.mjs): their compiles emit the same files.
import {
  existsSync,
  readdirSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const dist = join(root, 'dist');
const stamp = join(dist, '.start-build-stamp');
const INPUTS = [
  'src',
  'tsconfig.json',
  'tsconfig.build.json',
  'nest-cli.json',
  'package.json',
  'package-lock.json',
];

function newestMtime(path) {
  const stats = statSync(path, { throwIfNoEntry: false });
  if (!stats) return 0;
  if (!stats.isDirectory()) return stats.mtimeMs;
  let newest = stats.mtimeMs;
  for (const entry of readdirSync(path))
    newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

function builtAt() {
  if (!existsSync(join(dist, 'main.js'))) return 0;
  return statSync(stamp, { throwIfNoEntry: false })?.mtimeMs ?? 0;
}

/** Whether dist/ was built after every source and build input last changed. */
export function buildIsCurrent() {
  const newestInput = Math.max(
    ...INPUTS.map((input) => newestMtime(join(root, input))),
  );
  return builtAt() >= newestInput;
}

/** Records a build of dist/ that began at `started` (ms since the epoch). */
export function stampBuild(started) {
  writeFileSync(stamp, `${new Date(started).toISOString()}\n`);
  utimesSync(stamp, started / 1000, started / 1000);
}
