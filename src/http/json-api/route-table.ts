import FindMyWay from 'find-my-way';
import { ErrorFormat, errorFormatOf } from '../errors/error-format';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * A copy of the server's routes, kept so that a request that matched no route
 * can be told apart: an unknown path (404) or a known path with another method
 * (405 with `Allow`, in the error format of the path's routes). Fastify itself
 * answers 404 for both.
 */
export class RouteTable {
  private readonly router = FindMyWay({ ignoreTrailingSlash: true });
  private readonly entries: { method: string; url: string }[] = [];

  /** `config` is the route's Fastify config, where @ErrorFormat is kept. */
  add(method: string | string[], url: string, config?: unknown) {
    const errorFormat = errorFormatOf(config);
    for (const m of [method].flat()) {
      if ((METHODS as readonly string[]).includes(m)) {
        this.router.on(
          m as (typeof METHODS)[number],
          url,
          () => undefined,
          errorFormat,
        );
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

  /** The error format of the routes at this concrete path (JSON:API when none). */
  errorFormatAt(path: string): ErrorFormat {
    const pathname = path.split('?')[0];
    for (const method of METHODS) {
      const found = this.router.find(method, pathname);
      if (found) return found.store as ErrorFormat;
    }
    return errorFormatOf(undefined);
  }
}
