import { createServer, Server, Socket } from 'node:net';
import type { PGlite } from '@electric-sql/pglite';
import {
  ListenCommand,
  listenCommands,
  NotificationRouter,
} from './pglite-notifications';
import { StatementNames } from './pglite-statement-names';
import { ScramExchange, ScramVerifier } from './scram';

const SSL_REQUEST = 80877103;
const GSS_ENCRYPTION_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
/** PostgreSQL's own `authentication_timeout` default is a minute; nothing local needs that long. */
const AUTHENTICATION_TIMEOUT_MS = 10_000;

/**
 * Serves one PGlite session to many PostgreSQL connections.
 *
 * PGlite is a single session, so the connections take turns. A turn is a
 * whole protocol exchange, never a single message: an extended-protocol
 * query (Parse, Bind, Describe, Execute … Sync) or a simple query runs as one
 * batch, because interleaving another connection's Parse between them loses
 * the unnamed prepared statement. A connection that leaves a transaction open
 * keeps its turn until the transaction ends, so transactions stay isolated.
 * (`@electric-sql/pglite-socket` interleaves single messages, which broke
 * the `pg` pools of TypeORM and BullMQ running side by side.)
 *
 * A connection reaches PGlite only after SCRAM-SHA-256 authentication with
 * the password the multiplexer was made with, so another local user cannot
 * read the database through the loopback port.
 *
 * LISTEN/NOTIFY works per connection (`pglite-notifications.ts`): a
 * notification goes to the connections that listen to its channel, not to
 * the one whose exchange PGlite answered it in. Named prepared statements
 * and portals are per connection too (`pglite-statement-names.ts`): each
 * connection's names are prefixed on the way in, and the statements of a
 * connection that goes away are closed.
 */
export class PgliteMultiplexer {
  private server: Server | null = null;
  /** The connection whose turn it is, or the holder of `exclusive`. */
  private holder: object | null = null;
  private readonly waiting: Array<() => void> = [];
  private readonly connections = new Set<Connection>();
  private readonly notifications = new NotificationRouter<Connection>();
  private closing = false;
  private connectionCount = 0;
  readonly scram: ScramVerifier;

  constructor(
    private readonly db: PGlite,
    password: string,
  ) {
    this.scram = new ScramVerifier(password);
  }

  async listen(host: string, port: number): Promise<number> {
    const server = createServer((socket) => {
      const connection = new Connection(
        socket,
        this,
        new StatementNames(++this.connectionCount),
      );
      this.connections.add(connection);
      socket.on('close', () => this.connections.delete(connection));
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, resolve);
    });
    const address = server.address();
    if (!address || typeof address === 'string')
      throw new Error('PGlite multiplexer has no TCP address');
    return address.port;
  }

  async close(): Promise<void> {
    this.closing = true;
    for (const connection of this.connections) connection.destroy();
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }

  /**
   * Runs one batch for `connection` when it is its turn; returns PGlite's
   * reply bytes, less the notifications (written to their listeners).
   */
  async run(
    connection: Connection,
    batch: Uint8Array,
    commands: ListenCommand[],
  ): Promise<Uint8Array> {
    await this.acquire(connection);
    try {
      const reply = await this.db.execProtocolRaw(batch);
      const relisten = this.notifications.apply(connection, commands);
      // Inside the client's transaction, if it has one: the UNLISTEN and
      // this LISTEN then commit or roll back together.
      if (relisten.length > 0) await this.session('LISTEN', relisten);
      return this.notifications.route(reply, deliver);
    } finally {
      if (!this.db.isInTransaction()) this.release(connection);
    }
  }

  /**
   * A connection that goes away: its transaction rolls back, its prepared
   * statements are closed, its subscriptions end.
   */
  async abandon(connection: Connection): Promise<void> {
    if (this.holder === connection) {
      try {
        await this.db.exec('ROLLBACK');
      } finally {
        this.release(connection);
      }
    }
    const closes = connection.names.closeAll();
    if (closes && !this.closing)
      await this.exclusive(async () => {
        if (!this.closing)
          await this.db.execProtocolRaw(new Uint8Array(closes));
      });
    const unused = this.notifications.drop(connection);
    if (unused.length === 0 || this.closing) return;
    await this.exclusive(async () => {
      // Another connection may have listened again while this one waited.
      const still = unused.filter(
        (name) => !this.notifications.isListened(name),
      );
      if (still.length > 0 && !this.closing)
        await this.session('UNLISTEN', still);
    });
  }

  /** LISTEN or UNLISTEN on the session itself, in the current turn. */
  private async session(verb: 'LISTEN' | 'UNLISTEN', channels: string[]) {
    const sql = channels
      .map((name) => `${verb} "${name.replace(/"/g, '""')}"`)
      .join('; ');
    const reply = await this.db.execProtocolRaw(simpleQuery(sql));
    this.notifications.route(reply, deliver);
  }

  /**
   * Runs `work` on the PGlite session between two turns, with every
   * connection kept waiting (pg_dump, which talks to PGlite directly).
   */
  async exclusive<T>(work: () => Promise<T>): Promise<T> {
    const turn = {};
    await this.acquire(turn);
    try {
      return await work();
    } finally {
      this.release(turn);
    }
  }

  private async acquire(connection: object): Promise<void> {
    while (this.holder !== null && this.holder !== connection) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    this.holder = connection;
  }

  private release(connection: object) {
    if (this.holder !== connection) return;
    this.holder = null;
    this.waiting.splice(0).forEach((wake) => wake());
  }
}

class Connection {
  private buffer = Buffer.alloc(0);
  /** Before the startup message, then the two SCRAM steps, then forwarding to PGlite. */
  private phase:
    'startup' | 'sasl-initial' | 'sasl-final' | 'started' | 'refused' =
    'startup';
  private startup: Buffer | null = null;
  private exchange: ScramExchange | null = null;
  private pending: Buffer[] = [];
  private commands: ListenCommand[] = [];
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly socket: Socket,
    private readonly multiplexer: PgliteMultiplexer,
    readonly names: StatementNames,
  ) {
    socket.setNoDelay(true);
    socket.setTimeout(AUTHENTICATION_TIMEOUT_MS, () => socket.destroy());
    socket.on('data', (data) => this.receive(data));
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      this.chain = this.chain
        .then(() => this.multiplexer.abandon(this))
        .catch(() => undefined);
    });
  }

  destroy() {
    this.socket.destroy();
  }

  /** A NotificationResponse for a channel this connection listens to. */
  notify(message: Buffer) {
    if (this.phase === 'started' && this.socket.writable)
      this.socket.write(message);
  }

  private receive(data: Buffer) {
    if (this.phase === 'refused') return;
    this.buffer = Buffer.concat([this.buffer, data]);
    for (;;) {
      if (this.phase === 'startup') {
        if (this.buffer.length < 8) return;
        const length = this.buffer.readInt32BE(0);
        const code = this.buffer.readInt32BE(4);
        if (length < 8 || length > 10_000) return this.refuse('08P01');
        if (this.buffer.length < length) return;
        const message = this.buffer.subarray(0, length);
        this.buffer = this.buffer.subarray(length);
        if (code === SSL_REQUEST || code === GSS_ENCRYPTION_REQUEST) {
          this.socket.write('N');
        } else if (code === CANCEL_REQUEST) {
          this.socket.destroy();
          return;
        } else {
          this.startup = message;
          this.phase = 'sasl-initial';
          this.socket.write(
            authentication(10, Buffer.from('SCRAM-SHA-256\0\0')),
          );
        }
        continue;
      }
      if (this.buffer.length < 5) return;
      const length = this.buffer.readInt32BE(1) + 1;
      if (this.phase !== 'started' && (length < 5 || length > 10_000))
        return this.refuse('08P01');
      if (this.buffer.length < length) return;
      const message = this.buffer.subarray(0, length);
      this.buffer = this.buffer.subarray(length);
      const type = String.fromCharCode(message[0]);
      if (type === 'X') {
        this.socket.end();
        return;
      }
      if (this.phase !== 'started') {
        if (type !== 'p' || !this.authenticate(message.subarray(5))) {
          return this.refuse('28P01');
        }
        continue;
      }
      this.pending.push(this.names.rewrite(message));
      if (type === 'Q' || type === 'P')
        this.commands.push(...listenCommands(statementText(message)));
      // Sync ends an extended-protocol exchange, Query is a whole simple one,
      // Flush asks for output now, CopyDone/CopyFail end a COPY.
      if (
        type === 'S' ||
        type === 'Q' ||
        type === 'H' ||
        type === 'c' ||
        type === 'f'
      ) {
        this.enqueue(this.pending.splice(0), this.commands.splice(0));
      }
    }
  }

  /** One SASL message; false when authentication failed. */
  private authenticate(body: Buffer): boolean {
    if (this.phase === 'sasl-initial') {
      const end = body.indexOf(0);
      if (end < 0 || body.toString('latin1', 0, end) !== 'SCRAM-SHA-256')
        return false;
      if (body.length < end + 5) return false;
      const size = body.readInt32BE(end + 1);
      const clientFirst = body.toString('utf8', end + 5, end + 5 + size);
      this.exchange = this.multiplexer.scram.begin(clientFirst);
      if (!this.exchange) return false;
      this.phase = 'sasl-final';
      this.socket.write(
        authentication(11, Buffer.from(this.exchange.serverFirst)),
      );
      return true;
    }
    const serverFinal = this.exchange?.finish(body.toString('utf8'));
    if (!serverFinal || !this.startup) return false;
    this.socket.write(authentication(12, Buffer.from(serverFinal)));
    this.socket.setTimeout(0);
    this.phase = 'started';
    this.exchange = null;
    // PGlite answers the startup message with AuthenticationOk and the
    // session's parameters, which is what the client expects next.
    this.enqueue([this.startup], []);
    this.startup = null;
    return true;
  }

  /** Ends the connection with a FATAL error, as PostgreSQL does before a session starts. */
  private refuse(code: '28P01' | '08P01') {
    const text =
      code === '28P01'
        ? 'password authentication failed'
        : 'invalid startup packet';
    const fields = Buffer.from(
      `SFATAL\0VFATAL\0C${code}\0M${text}\0\0`,
      'utf8',
    );
    const header = Buffer.alloc(5);
    header.write('E', 0);
    header.writeInt32BE(fields.length + 4, 1);
    this.buffer = Buffer.alloc(0);
    this.phase = 'refused';
    this.socket.end(Buffer.concat([header, fields]));
  }

  private enqueue(messages: Buffer[], commands: ListenCommand[]) {
    const batch = new Uint8Array(Buffer.concat(messages));
    this.chain = this.chain
      .then(async () => {
        const reply = await this.multiplexer.run(this, batch, commands);
        if (reply.length > 0 && this.socket.writable) this.socket.write(reply);
      })
      .catch(() => {
        this.socket.destroy();
      });
  }
}

/** An Authentication message (`R`) of the given kind. */
function authentication(kind: number, data: Buffer): Buffer {
  const header = Buffer.alloc(9);
  header.write('R', 0);
  header.writeInt32BE(8 + data.length, 1);
  header.writeInt32BE(kind, 5);
  return Buffer.concat([header, data]);
}

function deliver(connection: Connection, message: Buffer) {
  connection.notify(message);
}

/** The SQL of a Query message, or of a Parse message (after the statement's name). */
function statementText(message: Buffer): string {
  let start = 5;
  if (message[0] === 0x50) start = message.indexOf(0, start) + 1; // 'P'
  const end = message.indexOf(0, start);
  return message.toString('utf8', start, end < 0 ? message.length : end);
}

/** A simple-protocol Query message. */
function simpleQuery(sql: string): Uint8Array {
  const text = Buffer.from(`${sql}\0`, 'utf8');
  const header = Buffer.alloc(5);
  header.write('Q', 0);
  header.writeInt32BE(4 + text.length, 1);
  return new Uint8Array(Buffer.concat([header, text]));
}
