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
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: RawQuery,
  ) {
    const listQuery = this.jsonApi.parseList(this.files, query);
    const page = await this.files.findPage(principal, listQuery);
    return this.jsonApi.list(this.files, page, listQuery, principal);
  }

  @Get(':id')
  async one(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: RawQuery,
  ) {
    const include = this.jsonApi.parseSingleInclude(this.files, query);
    const file = await this.files.findOne(principal, id);
    if (!file) throw AppError.notFound();
    return this.jsonApi.single(this.files, file, principal, include);
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
