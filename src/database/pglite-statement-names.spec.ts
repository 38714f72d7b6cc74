import { StatementNames } from './pglite-statement-names';

/** A frontend message: type, length, then C strings or raw bytes. */
function message(type: string, ...parts: (string | Buffer)[]): Buffer {
  const body = Buffer.concat(
    parts.map((part) =>
      typeof part === 'string' ? Buffer.from(`${part}\0`) : part,
    ),
  );
  const header = Buffer.alloc(5);
  header.write(type, 0);
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

const int16 = (value: number) => {
  const buffer = Buffer.alloc(2);
  buffer.writeInt16BE(value);
  return buffer;
};
const int32 = (value: number) => {
  const buffer = Buffer.alloc(4);
  buffer.writeInt32BE(value);
  return buffer;
};

describe('StatementNames', () => {
  it('prefixes the statement and portal names of Parse, Bind, Describe, Execute and Close', () => {
    const names = new StatementNames(7);
    const parse = names.rewrite(
      message('P', 'by-id', 'SELECT $1::int', int16(1), int32(23)),
    );
    expect(parse).toEqual(
      message('P', 'c7:by-id', 'SELECT $1::int', int16(1), int32(23)),
    );
    const bindRest = Buffer.concat([
      int16(0),
      int16(1),
      int32(1),
      Buffer.from('5'),
      int16(0),
    ]);
    expect(names.rewrite(message('B', 'portal', 'by-id', bindRest))).toEqual(
      message('B', 'c7:portal', 'c7:by-id', bindRest),
    );
    expect(names.rewrite(message('D', Buffer.from('S'), 'by-id'))).toEqual(
      message('D', Buffer.from('S'), 'c7:by-id'),
    );
    expect(names.rewrite(message('D', Buffer.from('P'), 'portal'))).toEqual(
      message('D', Buffer.from('P'), 'c7:portal'),
    );
    expect(names.rewrite(message('E', 'portal', int32(0)))).toEqual(
      message('E', 'c7:portal', int32(0)),
    );
    expect(names.rewrite(message('C', Buffer.from('P'), 'portal'))).toEqual(
      message('C', Buffer.from('P'), 'c7:portal'),
    );
  });

  it('leaves the unnamed statement and portal, and other messages, as they are', () => {
    const names = new StatementNames(1);
    const messages = [
      message('P', '', 'SELECT 1', int16(0)),
      message('B', '', '', int16(0), int16(0), int16(0)),
      message('D', Buffer.from('P'), ''),
      message('E', '', int32(0)),
      message('S'),
      message('Q', 'SELECT 1'),
    ];
    for (const sent of messages) expect(names.rewrite(sent)).toBe(sent);
    expect(names.closeAll()).toBeNull();
  });

  it('keeps a name too long for PostgreSQL distinct within its 63 bytes', () => {
    const names = new StatementNames(12);
    const long = (end: string) => `${'x'.repeat(70)}${end}`;
    const [a, b] = [names.sessionName(long('a')), names.sessionName(long('b'))];
    expect(Buffer.byteLength(a)).toBeLessThanOrEqual(63);
    expect(a).toMatch(/^c12:#/);
    expect(a).not.toBe(b);
    expect(names.sessionName(long('a'))).toBe(a);
  });

  it('closes the statements the connection prepared and did not close', () => {
    const names = new StatementNames(3);
    names.rewrite(message('P', 'one', 'SELECT 1', int16(0)));
    names.rewrite(message('P', 'two', 'SELECT 2', int16(0)));
    names.rewrite(message('P', 'three', 'SELECT 3', int16(0)));
    names.rewrite(message('C', Buffer.from('S'), 'two'));
    expect(names.closeAll()).toEqual(
      Buffer.concat([
        message('C', Buffer.from('S'), 'c3:one'),
        message('C', Buffer.from('S'), 'c3:three'),
        message('S'),
      ]),
    );
    expect(names.closeAll()).toBeNull();
  });
});
