import FindMyWay from 'find-my-way';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * A copy of the server's routes, kept so that a request that matched no route
 * can be told apart: an unknown path (404) or a known path with another method
 * (405 with `Allow`). Fastify itself answers 404 for both.
 */
export class RouteTable {
  private readonly router = FindMyWay({ ignoreTrailingSlash: true });
  private readonly entries: { method: string; url: string }[] = [];

  add(method: string | string[], url: string) {
    for (const m of [method].flat()) {
      if ((METHODS as readonly string[]).includes(m)) {
        this.router.on(m as (typeof METHODS)[number], url, () => undefined);
        this.entries.push({ method: m, url });
      }
    }
  }

  /** Every route served (the OpenAPI lint compares them with the document). */
  list(): { method: string; url: string }[] {
    return [...this.entries];
  }

  /** Methods served at this concrete path, empty for an unknown path. */
  allowedMethods(path: string): string[] {
    const pathname = path.split('?')[0];
    return METHODS.filter(
      (method) => this.router.find(method, pathname) !== null,
    );
  }
}
