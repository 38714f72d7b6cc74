/**
 * LISTEN/NOTIFY across the connections that share PGlite's one session.
 *
 * A LISTEN from any connection subscribes the session, and PostgreSQL
 * hands the session's NotificationResponse to whichever exchange is running
 * when it is delivered: in practice the notifier's own COMMIT. Forwarded
 * as is, a NOTIFY woke nobody (BullMQ's workers wait for `bullmq_jobs` on a
 * connection of their own, so every new job waited for the worker's poll,
 * or for a delayed job's due time). So the multiplexer keeps, per channel,
 * the connections that asked to LISTEN, takes every NotificationResponse
 * out of the replies and writes it to those connections (a client must
 * accept one at any time between messages). The session listens to the
 * union of the channels: one connection's UNLISTEN, or its going away, ends
 * only its own subscription.
 */

/** A LISTEN or UNLISTEN of one connection; `channel` null is `UNLISTEN *` (or DISCARD ALL). */
export interface ListenCommand {
  listen: boolean;
  channel: string | null;
}

const NOTIFICATION_RESPONSE = 0x41; // 'A'

export class NotificationRouter<C> {
  private readonly channels = new Map<string, Set<C>>();

  /**
   * Records a connection's commands once its exchange has run. Returns the
   * channels that its UNLISTEN took from the session although other
   * connections still listen to them: the caller makes the session LISTEN
   * to them again in the same turn.
   */
  apply(connection: C, commands: ListenCommand[]): string[] {
    const relisten = new Set<string>();
    for (const { listen, channel } of commands) {
      if (listen && channel !== null) {
        const subscribers = this.channels.get(channel) ?? new Set<C>();
        subscribers.add(connection);
        this.channels.set(channel, subscribers);
        relisten.delete(channel);
        continue;
      }
      const names = channel === null ? [...this.channels.keys()] : [channel];
      for (const name of names) {
        this.channels.get(name)?.delete(connection);
        if (this.channels.get(name)?.size === 0) this.channels.delete(name);
        else if (this.channels.has(name)) relisten.add(name);
      }
    }
    return [...relisten];
  }

  /** Forgets a connection that went away; returns the channels no one listens to any more. */
  drop(connection: C): string[] {
    const unused: string[] = [];
    for (const [name, subscribers] of this.channels) {
      if (!subscribers.delete(connection) || subscribers.size > 0) continue;
      this.channels.delete(name);
      unused.push(name);
    }
    return unused;
  }

  isListened(channel: string): boolean {
    return this.channels.has(channel);
  }

  /** The reply without its NotificationResponses, each given to the channel's listeners. */
  route(
    reply: Uint8Array,
    deliver: (connection: C, message: Buffer) => void,
  ): Uint8Array {
    const bytes = Buffer.from(reply.buffer, reply.byteOffset, reply.length);
    const kept: Buffer[] = [];
    let start = 0;
    let offset = 0;
    while (offset + 5 <= bytes.length) {
      const end = offset + 1 + bytes.readInt32BE(offset + 1);
      if (bytes[offset] === NOTIFICATION_RESPONSE) {
        kept.push(bytes.subarray(start, offset));
        const message = Buffer.from(bytes.subarray(offset, end));
        const channelEnd = message.indexOf(0, 9);
        const channel = message.toString('utf8', 9, channelEnd);
        for (const connection of this.channels.get(channel) ?? [])
          deliver(connection, message);
        start = end;
      }
      offset = end;
    }
    if (start === 0) return reply;
    kept.push(bytes.subarray(start));
    return new Uint8Array(Buffer.concat(kept));
  }
}

/**
 * The LISTEN, UNLISTEN and DISCARD ALL statements in a frontend message's
 * SQL (a simple Query, or the statement of a Parse). Every other statement
 * is ignored; quoted text and comments are skipped, not searched.
 */
export function listenCommands(sql: string): ListenCommand[] {
  if (!/listen|discard/i.test(sql)) return [];
  const commands: ListenCommand[] = [];
  for (const statement of statements(sql)) {
    const words =
      /^(UNLISTEN|LISTEN|DISCARD)\s+(\*|"(?:[^"]|"")+"|[^\s"]+)$/i.exec(
        statement,
      );
    if (!words) continue;
    const verb = words[1].toUpperCase();
    const target = words[2];
    if (verb === 'DISCARD') {
      if (target.toUpperCase() === 'ALL')
        commands.push({ listen: false, channel: null });
    } else if (target === '*') {
      if (verb === 'UNLISTEN') commands.push({ listen: false, channel: null });
    } else {
      commands.push({ listen: verb === 'LISTEN', channel: identifier(target) });
    }
  }
  return commands;
}

/** A channel name as PostgreSQL stores it: quoted kept as written, unquoted in lower case. */
function identifier(token: string): string {
  if (token.startsWith('"')) return token.slice(1, -1).replace(/""/g, '"');
  return token.toLowerCase();
}

/** The statements of a SQL string, trimmed, with comments removed and quoted text intact. */
function statements(sql: string): string[] {
  const found: string[] = [];
  let current = '';
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    const next = sql[i + 1];
    if (c === '-' && next === '-') {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? sql.length : end;
      current += ' ';
    } else if (c === '/' && next === '*') {
      let depth = 1;
      i += 2;
      while (i < sql.length && depth > 0) {
        const pair = sql.slice(i, i + 2);
        if (pair === '/*' || pair === '*/') {
          depth += pair === '/*' ? 1 : -1;
          i += 2;
        } else {
          i++;
        }
      }
      current += ' ';
    } else if (c === "'" || c === '"') {
      let end = i + 1;
      for (;;) {
        end = sql.indexOf(c, end);
        if (end < 0) end = sql.length;
        if (sql[end + 1] === c) end += 2;
        else break;
      }
      current += sql.slice(i, end + 1);
      i = end + 1;
    } else if (c === '$') {
      const tag = /^\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i));
      if (!tag) {
        current += c;
        i++;
        continue;
      }
      const close = sql.indexOf(tag[0], i + tag[0].length);
      const end = close < 0 ? sql.length : close + tag[0].length;
      current += sql.slice(i, end);
      i = end;
    } else if (c === ';') {
      found.push(current.trim());
      current = '';
      i++;
    } else {
      current += c;
      i++;
    }
  }
  found.push(current.trim());
  return found.filter((statement) => statement.length > 0);
}
