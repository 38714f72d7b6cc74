import { Agent, request as httpRequest } from 'node:http';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  text: string;
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/**
 * One request with exactly the bytes given: unlike fetch, node:http sends
 * any method, any (header-legal) header value and a raw path, so hostile
 * requests reach the server as written.
 */
export function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: Buffer | string,
  timeoutMs = 15_000,
): Promise<RawResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers:
          body === undefined
            ? headers
            : { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        agent,
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const buffer = Buffer.concat(chunks);
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: buffer,
            text: buffer.toString('utf8'),
          });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () =>
      req.destroy(new Error(`timeout: ${method} ${path}`)),
    );
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

export function closeAgent() {
  agent.destroy();
}

export interface ErrorShapeOptions {
  /** The License API answers plain JSON: `{<flag>: false, error}`. */
  plainLicense?: boolean;
  /** HTML pages may answer a browser (Accept: text/html) with an HTML error page. */
  htmlAllowed?: boolean;
}

/** Why a 4xx/5xx response is not a proper error document, or null when it is. */
export function errorShapeProblem(
  response: RawResponse,
  options: ErrorShapeOptions = {},
): string | null {
  const type = String(response.headers['content-type'] ?? '');
  if (options.htmlAllowed && type.startsWith('text/html')) return null;
  let body: unknown;
  try {
    body = JSON.parse(response.text);
  } catch {
    return `body is not JSON (${type}): ${response.text.slice(0, 200)}`;
  }
  if (options.plainLicense) {
    if (!type.startsWith('application/json'))
      return `License API error with content-type ${type}`;
    const doc = body as Record<string, unknown>;
    const flags = ['activated', 'valid', 'deactivated'].filter(
      (flag) => flag in doc,
    );
    if (flags.length !== 1 || doc[flags[0]] !== false)
      return `License API error without its false flag: ${response.text}`;
    if (typeof doc.error !== 'string' || doc.error === '')
      return `License API error without an error message: ${response.text}`;
    return null;
  }
  if (!type.startsWith('application/vnd.api+json'))
    return `error with content-type ${type}`;
  const doc = body as {
    jsonapi?: { version?: string };
    errors?: {
      status?: string;
      title?: string;
      detail?: string;
      code?: string;
    }[];
    data?: unknown;
  };
  if (doc.jsonapi?.version !== '1.0') return 'no jsonapi.version 1.0';
  if (!Array.isArray(doc.errors) || doc.errors.length === 0)
    return 'no errors array';
  if ('data' in doc) return 'an error document with data';
  for (const error of doc.errors) {
    if (error.status !== String(response.status))
      return `error status ${error.status} on a ${response.status}`;
    if (typeof error.title !== 'string' || typeof error.detail !== 'string')
      return 'error without title/detail';
    if (typeof error.code !== 'string' || !/^[a-z][a-z0-9_]*$/.test(error.code))
      return `error without a snake_case code: ${response.text}`;
  }
  return null;
}
