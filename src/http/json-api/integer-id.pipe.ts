import { Injectable, Optional, PipeTransform } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import { parseIntegerId } from '../../common/ids';

/**
 * `@Param('id', IntegerIdPipe) id: number`: a path id that cannot be an
 * integer id (a word, 0, past the column's range) names no record, so the
 * route answers 404 before any query. `new IntegerIdPipe(notFound)` throws
 * the route's own 404 (a module error factory) instead of the generic one.
 */
@Injectable()
export class IntegerIdPipe implements PipeTransform<string, number> {
  constructor(@Optional() private readonly notFound?: () => AppError) {}

  transform(raw: string): number {
    const id = parseIntegerId(raw);
    if (id === null) throw this.notFound?.() ?? AppError.notFound();
    return id;
  }
}
