import { createHash } from 'node:crypto';

/** PostgreSQL keeps a prepared statement's or portal's name in NAMEDATALEN - 1 bytes. */
const MAX_NAME_BYTES = 63;

/**
 * One connection's prepared statements and portals on the shared PGlite
 * session. PostgreSQL names them per session, and every connection of the
 * multiplexer shares one session, so two connections preparing the same
 * name (as two `pg` clients running the same named query do) would collide:
 * `prepared statement "…" already exists`. Each connection's names get a
 * prefix of its own in the extended-protocol messages that carry them
 * (Parse, Bind, Describe, Execute, Close); the unnamed statement and portal
 * stay unnamed, as a turn is a whole exchange. The statements a connection
 * prepared are remembered so that they can be closed when it goes away.
 *
 * Simple-protocol `PREPARE`, `EXECUTE`, `DEALLOCATE` and `DISCARD ALL` are
 * not rewritten (nothing in Zest or its drivers sends them).
 */
export class StatementNames {
  private readonly prefix: string;
  /** The session-side names of the statements this connection prepared. */
  private readonly statements = new Set<string>();

  constructor(connectionId: number) {
    this.prefix = `c${connectionId}:`;
  }

  /** The message as the shared session must see it (the same buffer when nothing is named). */
  rewrite(message: Buffer): Buffer {
    switch (message[0]) {
      case 0x50: {
        // Parse: statement name, query, parameter types.
        const renamed = this.rename(message, 5);
        if (renamed !== message) this.statements.add(this.session(message, 5));
        return renamed;
      }
      case 0x42: {
        // Bind: portal name, then statement name.
        const portalEnd = message.indexOf(0, 5);
        if (portalEnd < 0) return message;
        return this.rename(this.rename(message, portalEnd + 1), 5);
      }
      case 0x45: // Execute: portal name.
        return this.rename(message, 5);
      case 0x44: // Describe: 'S' or 'P', then the name.
        return this.rename(message, 6);
      case 0x43: {
        // Close: 'S' or 'P', then the name.
        if (message[5] === 0x53)
          this.statements.delete(this.session(message, 6));
        return this.rename(message, 6);
      }
      default:
        return message;
    }
  }

  /** Close messages for every statement this connection left prepared, and a Sync. */
  closeAll(): Buffer | null {
    if (this.statements.size === 0) return null;
    const messages = [...this.statements].map((name) =>
      message(0x43, Buffer.concat([Buffer.from('S'), cString(name)])),
    );
    this.statements.clear();
    messages.push(message(0x53, Buffer.alloc(0)));
    return Buffer.concat(messages);
  }

  /** The session-side name for `name` ('' stays unnamed). */
  sessionName(name: string): string {
    if (name === '') return '';
    const full = this.prefix + name;
    if (Buffer.byteLength(full) <= MAX_NAME_BYTES) return full;
    // Too long to stay apart from another name once PostgreSQL truncates it.
    const digest = createHash('sha256').update(name).digest('base64url');
    return `${this.prefix}#${digest}`.slice(0, MAX_NAME_BYTES);
  }

  private session(message: Buffer, start: number): string {
    const end = message.indexOf(0, start);
    return this.sessionName(message.toString('utf8', start, end));
  }

  /** `message` with the C string at `start` renamed; the same buffer if unnamed or malformed. */
  private rename(message: Buffer, start: number): Buffer {
    const end = message.indexOf(0, start);
    if (end < 0 || end === start) return message;
    const renamed = Buffer.from(
      this.sessionName(message.toString('utf8', start, end)),
    );
    const out = Buffer.concat([
      message.subarray(0, start),
      renamed,
      message.subarray(end),
    ]);
    out.writeInt32BE(out.length - 1, 1);
    return out;
  }
}

function cString(text: string): Buffer {
  return Buffer.from(`${text}\0`, 'utf8');
}

/** A frontend message of `type` with `body`. */
function message(type: number, body: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header[0] = type;
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}
