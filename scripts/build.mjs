// `npm run build`: `nest build` (type-checked), then the stamp that
// scripts/build-stamp.mjs reads. With --if-changed (`npm test`), nothing is
// built when dist/ is newer than every source and build input, as after a
// `npm run build` or `npm start` with nothing changed since.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { buildIsCurrent, root, stampBuild } from './build-stamp.mjs';

if (process.argv.includes('--if-changed') && buildIsCurrent()) {
  process.stderr.write(
    'dist/ is current (no source changed since its build).\n',
  );
  process.exit(0);
}
const started = Date.now();
const nest = join(root, 'node_modules', '@nestjs', 'cli', 'bin', 'nest.js');
const result = spawnSync(process.execPath, [nest, 'build'], {
  cwd: root,
  stdio: 'inherit',
});
if (result.status !== 0) process.exit(result.status ?? 1);
stampBuild(started);
