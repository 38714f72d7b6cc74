// `npm start`: compile src/ into dist/ only when a source or build input is
// newer than the last build, then run dist/main.js in this process.
//
// The compile is `tsc --noCheck`: it emits exactly what `nest build` emits
// (checked file by file) without type-checking, which `npm run typecheck`,
// `npm run build` and CI do. A second start with nothing changed skips it.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { enableCompileCache } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildIsCurrent, dist, root, stampBuild } from './build-stamp.mjs';

if (!buildIsCurrent()) {
  const started = Date.now();
  process.stderr.write(
    'Compiling src/ into dist/ (sources changed since the last build)…\n',
  );
  // A clean dist/, as `nest build` leaves it: no output of deleted sources.
  rmSync(dist, { recursive: true, force: true });
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = spawnSync(
    process.execPath,
    [tsc, '-p', 'tsconfig.build.json', '--noCheck'],
    { cwd: root, stdio: 'inherit' },
  );
  if (result.status !== 0) {
    process.stderr.write('Compiling failed; nothing started.\n');
    process.exit(1);
  }
  // Dated when the compile began: a source saved during it is newer, so the
  // next start compiles again.
  stampBuild(started);
  process.stderr.write(
    `Compiled in ${((Date.now() - started) / 1000).toFixed(1)} s.\n`,
  );
}

// V8's code cache for every module loaded from here on (Node's own cache
// directory under the OS temp dir): later starts skip most parsing.
enableCompileCache();
await import(pathToFileURL(join(dist, 'main.js')).href);
