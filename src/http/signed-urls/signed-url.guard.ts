import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import { SignedUrls } from '../../common/signed-urls.service';
import { HttpErrorCodes } from '../errors/http-error-codes';

/**
 * Lets a request through only when its URL carries a valid, unexpired
 * signature; otherwise 403. Use with @Public() on routes whose link is the
 * credential (customer portal, receipts, invoice downloads).
 */
@Injectable()
export class SignedUrlGuard implements CanActivate {
  constructor(private readonly signedUrls: SignedUrls) {}

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<{ url: string }>();
    const check = this.signedUrls.verify(request.url);
    if (check === 'expired') {
      throw AppError.forbidden(
        'This link has expired. Request a new one from the merchant.',
        HttpErrorCodes.linkExpired,
      );
    }
    if (check !== 'valid') {
      throw AppError.forbidden(
        'This link is invalid.',
        HttpErrorCodes.linkInvalid,
      );
    }
    return true;
  }
}
