import { Command, EXIT } from './command';

const PREFIX = 'npm run cli --';

const EXIT_CODES = [
  'Exit codes:',
  `  ${EXIT.ok}  done`,
  `  ${EXIT.failure}  failed (e.g. a user that does not exist, the database unreachable)`,
  `  ${EXIT.usage}  usage error (unknown command or option, a missing or malformed value)`,
];

export function usage(name: string, command: Command): string {
  const positionals = (command.arguments ?? []).map((argument) =>
    argument.required ? `<${argument.name}>` : `[${argument.name}]`,
  );
  const options = Object.entries(command.options).map(([option, spec]) => {
    const flag = `--${option}${spec.value ? ` ${spec.value}` : ''}`;
    return spec.required ? flag : `[${flag}]`;
  });
  return [PREFIX, name, ...positionals, ...options, '[--json]'].join(' ');
}

/** `npm run cli -- --help`: every command with its one-line description. */
export function rootHelp(commands: Record<string, Command>): string {
  const width = Math.max(...Object.keys(commands).map((name) => name.length));
  return [
    `Usage: ${PREFIX} <command> [options]`,
    `       ${PREFIX} <command> --help`,
    '',
    'Zest operator commands. They read the same environment as the server',
    '(and ./.env when run through npm). With the embedded database (no',
    'DATABASE_URL) they open DATA_DIR themselves: stop `npm start` first.',
    '',
    'Commands:',
    ...Object.entries(commands).map(
      ([name, command]) => `  ${name.padEnd(width)}  ${command.description}`,
    ),
    '',
    'Options on every command:',
    '  --json      print the result as one JSON object on stdout (progress and',
    '              errors go to stderr)',
    '  -h, --help  describe the command',
    '',
    ...EXIT_CODES,
  ].join('\n');
}

/** `npm run cli -- <command> --help`. */
export function commandHelp(name: string, command: Command): string {
  const positionals = (command.arguments ?? []).map((argument) => [
    argument.required ? `<${argument.name}>` : `[${argument.name}]`,
    argument.description,
  ]);
  const options = Object.entries(command.options).map(([option, spec]) => [
    `--${option}${spec.value ? ` ${spec.value}` : ''}`,
    `${spec.description}${spec.required ? ' Required.' : ''}`,
  ]);
  options.push(['--json', 'Print the result as one JSON object on stdout.']);
  options.push(['-h, --help', 'Show this help.']);
  const width = Math.max(
    ...[...positionals, ...options].map(([flag]) => flag.length),
  );
  return [
    `Usage: ${usage(name, command)}`,
    '',
    command.description,
    '',
    ...(positionals.length > 0
      ? [
          'Arguments:',
          ...positionals.map(
            ([flag, text]) => `  ${flag.padEnd(width)}  ${text}`,
          ),
          '',
        ]
      : []),
    'Options:',
    ...options.map(([flag, text]) => `  ${flag.padEnd(width)}  ${text}`),
    '',
    'Example:',
    `  ${PREFIX} ${command.example}`,
    '',
    ...EXIT_CODES,
  ].join('\n');
}

/** The same as JSON, for `--help --json`. */
export function helpDocument(commands: Record<string, Command>, only?: string) {
  return {
    commands: Object.entries(commands)
      .filter(([name]) => only === undefined || name === only)
      .map(([name, command]) => ({
        name,
        description: command.description,
        usage: usage(name, command),
        arguments: (command.arguments ?? []).map((argument) => ({
          name: argument.name,
          required: argument.required === true,
          description: argument.description,
        })),
        options: Object.fromEntries(
          Object.entries(command.options).map(([option, spec]) => [
            option,
            {
              value: spec.value ?? null,
              required: spec.required === true,
              description: spec.description,
            },
          ]),
        ),
        example: `${PREFIX} ${command.example}`,
      })),
    exit_codes: { ok: EXIT.ok, failure: EXIT.failure, usage: EXIT.usage },
  };
}
