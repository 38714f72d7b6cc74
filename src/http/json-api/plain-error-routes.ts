import { ArgumentsHost, Injectable } from '@nestjs/common';

/** Renders the errors of routes that do not speak JSON:API. */
export interface PlainErrorHandler {
  /** Whether this handler owns the request URL (path and query). */
  matches(url: string): boolean;
  catch(exception: unknown, host: ArgumentsHost): void;
}

/**
 * Paths whose errors are not JSON:API documents (the License API answers
 * plain JSON). Their modules register a handler here; the global exception
 * filter hands it every error on those paths, including the ones raised
 * before routing (unparsable bodies, 405).
 */
@Injectable()
export class PlainErrorRoutes {
  private readonly handlers: PlainErrorHandler[] = [];

  register(handler: PlainErrorHandler) {
    if (!this.handlers.includes(handler)) this.handlers.push(handler);
  }

  find(url: string): PlainErrorHandler | undefined {
    return this.handlers.find((handler) => handler.matches(url));
  }
}
