import { rawRequest } from './http';

export interface JsonResponse {
  status: number;
  // Response documents are read field by field in assertions; a schema per test would add nothing.
  // oxlint-disable-next-line typescript/no-explicit-any
  body: any;
  headers: Record<string, string | string[] | undefined>;
}

/** A small JSON client for the model tests: JSON:API with a key, or plain JSON without. */
export function client(baseUrl: string, key?: string) {
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<JsonResponse> => {
    const response = await rawRequest(
      baseUrl,
      method,
      path,
      {
        accept: 'application/vnd.api+json',
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(body === undefined
          ? {}
          : {
              'content-type': key
                ? 'application/vnd.api+json'
                : 'application/json',
            }),
        ...headers,
      },
      body === undefined ? undefined : JSON.stringify(body),
    );
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(response.text);
    } catch {
      parsed = response.text;
    }
    return { status: response.status, body: parsed, headers: response.headers };
  };
  return {
    get: (path: string) => call('GET', path),
    post: (path: string, body?: unknown, headers?: Record<string, string>) =>
      call('POST', path, body, headers),
    patch: (path: string, body: unknown) => call('PATCH', path, body),
    delete: (path: string) => call('DELETE', path),
  };
}

/** Fails with the response when it is a 5xx: the one outcome no test accepts. */
export function no5xx(response: JsonResponse, what: string): JsonResponse {
  if (response.status >= 500)
    throw new Error(
      `${what} answered ${response.status}: ${JSON.stringify(response.body)}`,
    );
  return response;
}
