import { parseArgs } from 'node:util';
import { COMMANDS } from './commands';
import { commandHelp, helpDocument, rootHelp } from './help';

/** Splits an example the way a shell would (double quotes only). */
function words(line: string): string[] {
  return [...line.matchAll(/"((?:[^"\\]|\\.)*)"|(\S+)/g)].map(
    (match) => match[1] ?? match[2],
  );
}

describe('CLI help', () => {
  const commands = Object.entries(COMMANDS);

  it.each(commands)(
    '%s has a description, described options and an example that parses',
    (name, command) => {
      expect(command.description).toMatch(/^[A-Z].{10,}\.$/);
      for (const spec of Object.values(command.options))
        expect(spec.description).toMatch(/\S/);
      const [first, ...args] = words(command.example);
      expect(first).toBe(name);
      const { values, positionals } = parseArgs({
        args,
        allowPositionals: true,
        options: Object.fromEntries(
          Object.entries(command.options).map(([option, spec]) => [
            option,
            { type: spec.type },
          ]),
        ),
        strict: true,
      });
      for (const [option, spec] of Object.entries(command.options))
        if (spec.required) expect(values[option]).toBeDefined();
      const declared = command.arguments ?? [];
      expect(positionals.length).toBeLessThanOrEqual(declared.length);
      declared.forEach((argument, i) => {
        expect(argument.description).toMatch(/\S/);
        if (argument.required) expect(positionals[i]).toBeDefined();
      });
      const help = commandHelp(name, command);
      expect(help).toContain(command.description);
      expect(help).toContain(`npm run cli -- ${command.example}`);
      expect(help).toContain('2  usage error');
    },
  );

  it('lists every command with its description and the exit codes', () => {
    const help = rootHelp(COMMANDS);
    for (const [name, command] of commands)
      expect(help).toMatch(
        new RegExp(
          `^  ${name} +${command.description.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`,
          'm',
        ),
      );
    expect(help).toMatch(/^ {2}0 {2}done$/m);
    expect(helpDocument(COMMANDS).commands.map((c) => c.name)).toEqual(
      Object.keys(COMMANDS),
    );
  });
});
