import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

const REAP_INTERVAL_MS = 100;

/**
 * Lets a closing server finish as soon as its last response is sent.
 * `server.close()` ends only the keep-alive connections idle at that moment;
 * one still busy with a response goes back to idle afterwards and would hold
 * the shutdown until its keep-alive timeout (72 s), beyond a container's
 * stop grace period. So idle connections are reaped until the server closes.
 * `closeIdleConnections()` leaves alone a connection that has not sent a
 * byte yet (a browser's preconnect, a load balancer's TCP check, the spare
 * one a client opens after cancelling a download): it would hold the
 * shutdown until the headers timeout, so those are closed too.
 */
export function installConnectionDrain(fastify: FastifyInstance): void {
  const sockets = new Set<Socket>();
  fastify.server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  fastify.addHook('preClose', (done) => {
    const { server } = fastify;
    const reap = () => {
      server.closeIdleConnections();
      for (const socket of sockets)
        if (socket.bytesRead === 0) socket.destroy();
    };
    reap();
    const reaper = setInterval(reap, REAP_INTERVAL_MS);
    reaper.unref();
    server.once('close', () => clearInterval(reaper));
    done();
  });
}
