import {
  Controller,
  Get,
  Param,
  Query,
  StreamableFile,
  UseGuards,
} from '@nestjs/common';
import { AppError } from '../../common/app-error';
import type { RawQuery } from '../../common/list-query';
import type { Principal } from '../../common/principal';
import { CurrentPrincipal } from '../../http/auth/principal';
import { Public } from '../../http/auth/public.decorator';
import { NotJsonApi } from '../../http/json-api/not-json-api.decorator';
import { IntegerIdPipe } from '../../http/json-api/integer-id.pipe';
import { JsonApi } from '../../http/json-api/json-api.service';
import { RateLimit } from '../../http/rate-limit/rate-limit.decorator';
import { SignedUrlGuard } from '../../http/signed-urls/signed-url.guard';
import { FileSerializer } from './file.serializer';
import { FileService } from './file.service';

/** Files have no write route in the spec; FileService.attach adds them. */
@Controller('v1/files')
export class FileController {
  constructor(
    private readonly files: FileSerializer,
    private readonly jsonApi: JsonApi,
  ) {}

  @Get()
  list(@CurrentPrincipal() principal: Principal, @Query() query: RawQuery) {
    return this.jsonApi.readList(this.files, principal, query);
  }

  @Get(':id')
  one(
    @CurrentPrincipal() principal: Principal,
    @Param('id', IntegerIdPipe) id: number,
    @Query() query: RawQuery,
  ) {
    return this.jsonApi.readOne(this.files, principal, id, query);
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The signed `download_url` of a file: no API key, the signature is the credential. */
@Public()
@RateLimit('page')
@NotJsonApi()
@UseGuards(SignedUrlGuard)
@Controller('downloads')
export class FileDownloadController {
  constructor(private readonly files: FileService) {}

  @Get(':identifier')
  async download(
    @Param('identifier') identifier: string,
  ): Promise<StreamableFile> {
    if (!UUID.test(identifier)) throw AppError.notFound();
    const { file, content } = await this.files.download(identifier);
    return new StreamableFile(content, {
      type: file.contentType,
      length: file.size,
      disposition: `attachment; filename*=UTF-8''${encodeURIComponent(file.name)}`,
    });
  }
}
