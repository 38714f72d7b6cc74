import {
  Controller,
  Get,
  Headers,
  Param,
  Query,
  Res,
  StreamableFile,
  UseGuards,
} from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { AppError } from '../../common/app-error';
import type { RawQuery } from '../../common/list-query';
import { Public } from '../../http/auth/public.decorator';
import { NotJsonApi } from '../../http/json-api/not-json-api.decorator';
import { RateLimit } from '../../http/rate-limit/rate-limit.decorator';
import { SignedUrlGuard } from '../../http/signed-urls/signed-url.guard';
import { attachmentDisposition } from '../../storage/s3-file-storage';
import { DeliveryService } from './delivery.service';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Signed file links: the merchant's `download_url` and buyers' links from
 * receipts, the portal and e-mails. No API key: the signature is the
 * credential.
 */
@Public()
@RateLimit('page')
@NotJsonApi()
@UseGuards(SignedUrlGuard)
@Controller('downloads')
export class DownloadController {
  constructor(private readonly delivery: DeliveryService) {}

  @Get(':identifier')
  async download(
    @Param('identifier') identifier: string,
    @Query() query: RawQuery,
    @Headers('range') range: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<StreamableFile | undefined> {
    if (!UUID.test(identifier)) throw AppError.notFound();
    const item =
      query.item === undefined
        ? null
        : typeof query.item === 'string' && /^[1-9]\d{0,9}$/.test(query.item)
          ? Number(query.item)
          : undefined;
    if (item === undefined || (item !== null && item > 2147483647))
      throw AppError.notFound();
    const answer = await this.delivery.download(identifier, item, range);
    // The URL is the credential: keep it out of caches and Referer headers.
    void reply
      .header('cache-control', 'private, no-store')
      .header('referrer-policy', 'no-referrer')
      .header('x-content-type-options', 'nosniff');
    const { file } = answer;
    if (file.sha256) {
      const digest = Buffer.from(file.sha256, 'hex').toString('base64');
      void reply
        .header('repr-digest', `sha-256=:${digest}:`)
        .header('etag', `"${file.sha256}"`);
    }
    if (answer.kind === 'redirect') {
      void reply.status(302).header('location', answer.url);
      return undefined;
    }
    void reply.header('accept-ranges', 'bytes');
    if (answer.range) {
      void reply
        .status(206)
        .header(
          'content-range',
          `bytes ${answer.range.start}-${answer.range.end}/${file.size}`,
        );
    }
    return new StreamableFile(answer.stream, {
      type: file.contentType,
      length: answer.range
        ? answer.range.end - answer.range.start + 1
        : file.size,
      disposition: attachmentDisposition(file.name),
    });
  }
}
