import {
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Patch,
  Post,
  Query,
  Req,
} from '@nestjs/common';
import type {} from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { parseIntegerId } from '../../common/ids';
import type { RawQuery } from '../../common/list-query';
import type { Principal } from '../../common/principal';
import type { WriteDocument } from '../../common/write-document';
import { CurrentPrincipal } from '../../http/auth/principal';
import { IntegerIdPipe } from '../../http/json-api/integer-id.pipe';
import { JsonApi } from '../../http/json-api/json-api.service';
import {
  JsonApiBody,
  parseWriteDocument,
} from '../../http/json-api/write-document';
import { FILE_UPDATE, FILE_UPLOAD } from './file.dto';
import type { FileUpdateAttributes, FileUploadAttributes } from './file.dto';
import { CatalogErrors } from './catalog.errors';
import { FileSerializer } from './file.serializer';
import { FileService } from './file.service';

/** Multipart framing and the `data` field (at most 64 KiB) around the file. */
const UPLOAD_OVERHEAD_BYTES = 128 * 1024;

@Controller('v1/files')
export class FileController {
  constructor(
    private readonly files: FileSerializer,
    private readonly service: FileService,
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

  /**
   * Extension: `multipart/form-data` with a `data` field (the JSON:API
   * document: `relationships.variant`, optional `name` and `sort`) and then
   * the `file` part, streamed to storage.
   */
  @Post()
  @HttpCode(201)
  async upload(
    @CurrentPrincipal() principal: Principal,
    @Req() request: FastifyRequest,
  ) {
    if (!request.isMultipart())
      throw CatalogErrors.malformedUpload(
        'Upload a file as multipart/form-data with a "data" field and then a "file" part.',
      );
    // A declared length past the limit (with room for the parts' headers
    // and the data field) is refused before a byte is read.
    const declared = Number(request.headers['content-length']);
    if (declared > this.service.maxUploadBytes + UPLOAD_OVERHEAD_BYTES)
      throw CatalogErrors.fileTooLarge(this.service.maxUploadBytes, true);
    let document: WriteDocument<FileUploadAttributes> | null = null;
    try {
      for await (const part of request.parts()) {
        if (part.type === 'field') {
          if (part.fieldname !== 'data' || document)
            throw CatalogErrors.malformedUpload(
              `Unexpected field "${part.fieldname}": send one "data" field, then the "file" part.`,
            );
          let body: unknown;
          try {
            body = JSON.parse(String(part.value));
          } catch {
            throw CatalogErrors.malformedUpload(
              'The "data" field is not valid JSON.',
            );
          }
          document = parseWriteDocument(body, FILE_UPLOAD);
          continue;
        }
        if (part.fieldname !== 'file')
          throw CatalogErrors.malformedUpload(
            `Unexpected file part "${part.fieldname}".`,
          );
        if (!document)
          throw CatalogErrors.malformedUpload(
            'The "data" field must come before the "file" part.',
          );
        const variantId = parseIntegerId(
          String(document.relationships.variant),
        );
        if (variantId === null) throw CatalogErrors.variantNotFound();
        const file = await this.service.upload(
          principal,
          variantId,
          part.file,
          {
            name: document.attributes.name ?? part.filename,
            sort: document.attributes.sort,
          },
        );
        return this.jsonApi.single(this.files, file, principal);
      }
    } catch (error) {
      if ((error as { code?: unknown }).code === 'FST_REQ_FILE_TOO_LARGE')
        throw CatalogErrors.fileTooLarge(this.service.maxUploadBytes);
      if (isMalformedMultipart(error))
        throw CatalogErrors.malformedUpload(
          `The multipart body could not be read: ${(error as Error).message}.`,
        );
      throw error;
    }
    throw CatalogErrors.malformedUpload('The upload has no "file" part.');
  }

  /** Extension: the name buyers see and the position among the variant's files. */
  @Patch(':id')
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('id', IntegerIdPipe) id: number,
    @JsonApiBody(FILE_UPDATE) body: WriteDocument<FileUpdateAttributes>,
  ) {
    const file = await this.service.update(principal, id, body.attributes);
    return this.jsonApi.single(this.files, file, principal);
  }

  /** Extension: the file stops being offered; orders placed before keep it. */
  @Delete(':id')
  @HttpCode(204)
  async remove(
    @CurrentPrincipal() principal: Principal,
    @Param('id', IntegerIdPipe) id: number,
  ) {
    await this.service.remove(principal, id);
  }
}

/**
 * The parser's own refusals: @fastify/multipart's limits and protocol errors
 * (`FST_…` with a 4xx status) and busboy's, which carry only a message (a
 * body cut short, no boundary, a bad part header).
 */
function isMalformedMultipart(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { code, statusCode } = error as {
    code?: unknown;
    statusCode?: unknown;
  };
  if (typeof code === 'string' && code.startsWith('FST_'))
    return typeof statusCode === 'number' && statusCode < 500;
  return /multipart|terminated early|part header/i.test(error.message);
}
