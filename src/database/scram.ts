import {
  createHash,
  createHmac,
  pbkdf2Sync,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';

const ITERATIONS = 4096;

/**
 * The server side of SCRAM-SHA-256 (RFC 5802, RFC 7677) as PostgreSQL speaks
 * it (without channel binding): the embedded database's password check. The
 * password never crosses the socket, and a captured exchange cannot be
 * replayed (each one carries a fresh server nonce).
 */
export class ScramVerifier {
  private readonly salt = randomBytes(16);
  private readonly storedKey: Buffer;
  private readonly serverKey: Buffer;

  constructor(password: string) {
    const salted = pbkdf2Sync(password, this.salt, ITERATIONS, 32, 'sha256');
    this.storedKey = sha256(hmac(salted, 'Client Key'));
    this.serverKey = hmac(salted, 'Server Key');
  }

  /** Answers a client-first-message; null when it is malformed or asks for channel binding. */
  begin(clientFirst: string): ScramExchange | null {
    const match = /^([ny]),,(n=[^,]*,r=([!-+\--~]+)(?:,.*)?)$/.exec(
      clientFirst,
    );
    if (!match) return null;
    const nonce = match[3] + randomBytes(18).toString('base64');
    const serverFirst = `r=${nonce},s=${this.salt.toString('base64')},i=${ITERATIONS}`;
    return {
      serverFirst,
      finish: (clientFinal) =>
        this.finish(match[1], match[2], serverFirst, nonce, clientFinal),
    };
  }

  private finish(
    gs2Flag: string,
    clientFirstBare: string,
    serverFirst: string,
    nonce: string,
    clientFinal: string,
  ): string | null {
    const match = /^(c=([^,]*),r=([^,]*)(?:,.*)?),p=([A-Za-z0-9+/=]+)$/.exec(
      clientFinal,
    );
    if (!match) return null;
    const [, withoutProof, binding, finalNonce, proofText] = match;
    if (binding !== Buffer.from(`${gs2Flag},,`).toString('base64')) return null;
    if (finalNonce !== nonce) return null;
    const proof = Buffer.from(proofText, 'base64');
    if (proof.length !== this.storedKey.length) return null;
    const authMessage = `${clientFirstBare},${serverFirst},${withoutProof}`;
    const signature = hmac(this.storedKey, authMessage);
    const clientKey = Buffer.from(proof.map((byte, i) => byte ^ signature[i]));
    if (!timingSafeEqual(sha256(clientKey), this.storedKey)) return null;
    return `v=${hmac(this.serverKey, authMessage).toString('base64')}`;
  }
}

export interface ScramExchange {
  serverFirst: string;
  /** The server-final-message, or null when the proof is wrong. */
  finish(clientFinal: string): string | null;
}

function hmac(key: Buffer, text: string): Buffer {
  return createHmac('sha256', key).update(text).digest();
}

function sha256(data: Buffer): Buffer {
  return createHash('sha256').update(data).digest();
}
