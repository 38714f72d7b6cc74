import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, TEST_APP_KEY } from '../support/test-app';

const withDatabase = Boolean(process.env.DATABASE_URL);
const describeWithDatabase = withDatabase ? describe : describe.skip;

/**
 * The node options of `npm run cli` (package.json), e.g. the preload that
 * reads ./.env, with its path made absolute (npm runs it from the root).
 */
const npmCliOptions = (
  JSON.parse(readFileSync('package.json', 'utf8')) as {
    scripts: Record<string, string>;
  }
).scripts.cli
  .split(' ')
  .filter((word) => word.startsWith('--'))
  .map((option) => option.replace('=./', `=${process.cwd()}/`));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `npm run cli -- <args>` as npm runs it, from `cwd`, with exactly `env`. */
function cli(
  args: string[],
  env: Record<string, string> = {},
  cwd = process.cwd(),
): Promise<Run> {
  const child = spawn(
    process.execPath,
    [...npmCliOptions, join(process.cwd(), 'dist', 'cli.js'), ...args],
    { cwd, env: { PATH: process.env.PATH ?? '', ...env } },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) =>
    child.once('close', (code) => resolve({ code, stdout, stderr })),
  );
}

describe('CLI help and usage', () => {
  it('describes itself, and every command has a description, options and an example', async () => {
    for (const flag of ['--help', '-h', 'help']) {
      const root = await cli([flag]);
      expect(root.code).toBe(0);
      expect(root.stdout).toContain('Exit codes:');
    }
    const document = JSON.parse((await cli(['--help', '--json'])).stdout) as {
      commands: { name: string; description: string; example: string }[];
    };
    expect(document.commands.map((c) => c.name)).toEqual(
      expect.arrayContaining([
        'migrate',
        'api-keys:create',
        'api-keys:list',
        'stores:list',
        'webhooks:list',
      ]),
    );
    for (const { name, description, example } of document.commands) {
      expect(description).toMatch(/\w{3,}/);
      const help = await cli([name, '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain(description);
      expect(help.stdout).toContain(`Example:\n  ${example}`);
      expect(help.stdout).toContain('Options:');
    }
  });

  it('refuses an unknown command or option with exit code 2 and the list', async () => {
    const unknown = await cli(['keys:make']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Unknown command "keys:make"');
    expect(unknown.stderr).toContain('api-keys:create');
    const option = await cli(['api-keys:list', '--colour']);
    expect(option.code).toBe(2);
    expect(option.stderr).toContain('Usage: npm run cli -- api-keys:list');
    const value = await cli([
      'api-keys:create',
      '--user',
      'x',
      '--mode',
      'test',
      '--json',
    ]);
    expect(value.code).toBe(2);
    expect(JSON.parse(value.stdout)).toEqual({
      error: '--user must be a positive integer',
      exit_code: 2,
    });
  });
});

describeWithDatabase(
  `CLI against PostgreSQL${withDatabase ? '' : ' (skipped: needs DATABASE_URL)'}`,
  () => {
    let database: { url: string | null; drop: () => Promise<void> };
    let env: Record<string, string>;
    let cwd: string;
    let key: string;

    const json = async (args: string[], runEnv = env, from?: string) => {
      const run = await cli([...args, '--json'], runEnv, from);
      if (run.code !== 0)
        throw new Error(`${args.join(' ')} exited ${run.code}: ${run.stderr}`);
      return JSON.parse(run.stdout) as Record<string, never>;
    };

    beforeAll(async () => {
      database = await createTestDatabase();
      cwd = mkdtempSync(join(tmpdir(), 'zest-cli-'));
      env = {
        DATABASE_URL: database.url as string,
        APP_KEY: TEST_APP_KEY,
        DATA_DIR: cwd,
        NODE_ENV: 'test',
      };
      await json(['migrate']);
      const user = await json([
        'users:create',
        '--email',
        'cli@example.com',
        '--name',
        'CLI',
      ]);
      await json([
        'stores:create',
        '--user',
        String(user.id),
        '--name',
        'CLI Shop',
      ]);
      const created = await json([
        'api-keys:create',
        '--user',
        String(user.id),
        '--mode',
        'test',
        '--expires-in',
        '7',
      ]);
      key = created.key;
      const days =
        (Date.parse(created.expires_at) - Date.now()) / (24 * 3600 * 1000);
      expect(days).toBeGreaterThan(6.9);
      expect(days).toBeLessThanOrEqual(7);
    });

    afterAll(async () => {
      rmSync(cwd, { recursive: true, force: true });
      await database?.drop();
    });

    it('api-keys:list shows prefix, mode, status and expiry, never the key', async () => {
      const listed = await json(['api-keys:list']);
      expect(listed.api_keys).toEqual([
        expect.objectContaining({
          prefix: key.slice(0, 14),
          mode: 'test',
          status: 'active',
          last_used_at: null,
        }),
      ]);
      const table = await cli(['api-keys:list'], env);
      expect(table.code).toBe(0);
      expect(table.stdout).toContain(key.slice(0, 14));
      for (const output of [JSON.stringify(listed), table.stdout, table.stderr])
        expect(output).not.toContain(key);
    });

    it('stores:list and webhooks:list answer with their lists', async () => {
      expect((await json(['stores:list'])).stores).toEqual([
        expect.objectContaining({ name: 'CLI Shop', currency: 'USD' }),
      ]);
      expect(await json(['webhooks:list', '--store', '1'])).toEqual({
        webhooks: [],
      });
    });

    it('a failure is exit code 1 and, with --json, one JSON object', async () => {
      const run = await cli(
        ['api-keys:create', '--user', '999', '--mode', 'test', '--json'],
        env,
      );
      expect(run.code).toBe(1);
      expect(JSON.parse(run.stdout)).toEqual({
        error: 'User 999 does not exist.',
        exit_code: 1,
      });
    });

    it('reads ./.env, and a variable set in the environment wins over it', async () => {
      expect(npmCliOptions.join(' ')).toContain('load-env.mjs');
      const { DATABASE_URL, ...rest } = env;
      // Only .env names the database: the CLI finds the key made above.
      writeFileSync(join(cwd, '.env'), `DATABASE_URL=${DATABASE_URL}\n`);
      const fromFile = await json(['api-keys:list'], rest, cwd);
      expect(fromFile.api_keys).toHaveLength(1);
      // .env names a server that is not there; the environment's URL wins.
      writeFileSync(
        join(cwd, '.env'),
        'DATABASE_URL=postgres://postgres@127.0.0.1:1/absent\n',
      );
      const fromEnvironment = await json(['api-keys:list'], env, cwd);
      expect(fromEnvironment.api_keys).toHaveLength(1);
      const fileOnly = await cli(['api-keys:list'], rest, cwd);
      expect(fileOnly.code).toBe(1);
      expect(fileOnly.stderr).toMatch(/ECONNREFUSED|connect/);
      // Without a .env file nothing is said about it.
      rmSync(join(cwd, '.env'));
      const none = await cli(['api-keys:list'], env, cwd);
      expect(none.code).toBe(0);
      expect(none.stderr).not.toContain('.env');
    });
  },
);
