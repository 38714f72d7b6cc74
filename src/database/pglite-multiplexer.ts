import { createServer, Server, Socket } from 'node:net';
import type { PGlite } from '@electric-sql/pglite';

const SSL_REQUEST = 80877103;
const CANCEL_REQUEST = 80877102;

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
 */
export class PgliteMultiplexer {
  private server: Server | null = null;
  private holder: Connection | null = null;
  private readonly waiting: Array<() => void> = [];
  private readonly connections = new Set<Connection>();

  constructor(private readonly db: PGlite) {}

  async listen(host: string, port: number): Promise<number> {
    const server = createServer((socket) => {
      const connection = new Connection(socket, this);
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
    for (const connection of this.connections) connection.destroy();
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }

  /** Runs one batch for `connection` when it is its turn; returns PGlite's reply bytes. */
  async run(connection: Connection, batch: Uint8Array): Promise<Uint8Array> {
    await this.acquire(connection);
    try {
      return await this.db.execProtocolRaw(batch);
    } finally {
      if (!this.db.isInTransaction()) this.release(connection);
    }
  }

  /** A connection that goes away in the middle of a transaction rolls it back. */
  async abandon(connection: Connection): Promise<void> {
    if (this.holder !== connection) return;
    try {
      await this.db.exec('ROLLBACK');
    } finally {
      this.release(connection);
    }
  }

  private async acquire(connection: Connection): Promise<void> {
    while (this.holder !== null && this.holder !== connection) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    this.holder = connection;
  }

  private release(connection: Connection) {
    if (this.holder !== connection) return;
    this.holder = null;
    this.waiting.splice(0).forEach((wake) => wake());
  }
}

class Connection {
  private buffer = Buffer.alloc(0);
  private started = false;
  private pending: Buffer[] = [];
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly socket: Socket,
    private readonly multiplexer: PgliteMultiplexer,
  ) {
    socket.setNoDelay(true);
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

  private receive(data: Buffer) {
    this.buffer = Buffer.concat([this.buffer, data]);
    for (;;) {
      if (!this.started) {
        if (this.buffer.length < 8) return;
        const length = this.buffer.readInt32BE(0);
        const code = this.buffer.readInt32BE(4);
        if (this.buffer.length < length) return;
        const message = this.buffer.subarray(0, length);
        this.buffer = this.buffer.subarray(length);
        if (code === SSL_REQUEST) {
          this.socket.write('N');
        } else if (code === CANCEL_REQUEST) {
          this.socket.destroy();
          return;
        } else {
          this.started = true;
          this.enqueue([message]);
        }
        continue;
      }
      if (this.buffer.length < 5) return;
      const length = this.buffer.readInt32BE(1) + 1;
      if (this.buffer.length < length) return;
      const message = this.buffer.subarray(0, length);
      this.buffer = this.buffer.subarray(length);
      const type = String.fromCharCode(message[0]);
      if (type === 'X') {
        this.socket.end();
        return;
      }
      this.pending.push(message);
      // Sync ends an extended-protocol exchange, Query is a whole simple one,
      // Flush asks for output now, CopyDone/CopyFail end a COPY.
      if (
        type === 'S' ||
        type === 'Q' ||
        type === 'H' ||
        type === 'c' ||
        type === 'f'
      ) {
        this.enqueue(this.pending.splice(0));
      }
    }
  }

  private enqueue(messages: Buffer[]) {
    const batch = new Uint8Array(Buffer.concat(messages));
    this.chain = this.chain
      .then(async () => {
        const reply = await this.multiplexer.run(this, batch);
        if (reply.length > 0 && this.socket.writable) this.socket.write(reply);
      })
      .catch(() => {
        this.socket.destroy();
      });
  }
}
