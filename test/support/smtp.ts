import { AddressInfo } from 'node:net';
import { ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer, SMTPServerAddress } from 'smtp-server';

export interface ReceivedMail {
  /** RCPT TO addresses of the SMTP envelope. */
  envelopeTo: string[];
  raw: string;
  parsed: ParsedMail;
}

export interface SmtpBehaviour {
  /** A RCPT TO for this address is refused with 550. */
  rejectRecipient?: string;
  /** Every message is refused after DATA with this reply code (e.g. 554). */
  refuseData?: number;
  /**
   * Up to this long between taking a message and sending its 250 reply: a
   * client killed in between never learns that it was accepted.
   */
  maxReplyDelayMs?: number;
}

export interface TestSmtpServer {
  port: number;
  url: string;
  received: ReceivedMail[];
  /** DATA commands answered (accepted or refused). */
  dataCommands: number;
  behaviour: SmtpBehaviour;
  /** Stops listening (connections in progress are dropped). */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
}

/**
 * A real SMTP server (the nodemailer project's `smtp-server`) on a loopback
 * port, without TLS or authentication; each accepted message is parsed with
 * `mailparser`.
 */
export async function startSmtpServer(port = 0): Promise<TestSmtpServer> {
  let server: SMTPServer;
  const state: TestSmtpServer = {
    port,
    url: '',
    received: [],
    dataCommands: 0,
    behaviour: {},
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
      }),
    start: () => listen(),
  };
  const create = () =>
    new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      // A stopped server answers nothing: close at once, not after 30 s.
      closeTimeout: 10,
      onRcptTo(address: SMTPServerAddress, _session, callback) {
        if (address.address === state.behaviour.rejectRecipient) {
          const error = new Error(
            '5.1.1 <' +
              address.address +
              '>: Recipient address rejected: User unknown',
          ) as Error & { responseCode: number };
          error.responseCode = 550;
          return callback(error);
        }
        callback();
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          state.dataCommands++;
          const refuse = state.behaviour.refuseData;
          if (refuse) {
            const error = new Error(
              '5.7.1 Message refused by policy',
            ) as Error & { responseCode: number };
            error.responseCode = refuse;
            return callback(error);
          }
          const raw = Buffer.concat(chunks).toString('utf8');
          simpleParser(raw).then(
            (parsed) => {
              state.received.push({
                envelopeTo: session.envelope.rcptTo.map((r) => r.address),
                raw,
                parsed,
              });
              const reply = `Message queued as test-${state.received.length}`;
              const delay =
                Math.random() * (state.behaviour.maxReplyDelayMs ?? 0);
              if (delay > 0) setTimeout(() => callback(null, reply), delay);
              else callback(null, reply);
            },
            (error: Error) => callback(error),
          );
        });
      },
    });
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server = create();
      server.on('error', () => undefined);
      const onError = (error: Error) => reject(error);
      server.server.once('error', onError);
      server.listen(state.port, '127.0.0.1', () => {
        server.server.off('error', onError);
        state.port = (server.server.address() as AddressInfo).port;
        state.url = `smtp://127.0.0.1:${state.port}`;
        resolve();
      });
    });
  await listen();
  return state;
}
