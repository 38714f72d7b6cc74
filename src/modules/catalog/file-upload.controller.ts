import {
  Controller,
  Delete,
  Head,
  Param,
  Patch,
  Post,
  Req,
  Res,
} from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../common/app-error';
import type { Principal } from '../../common/principal';
import { CurrentPrincipal } from '../../http/auth/principal';
import { NotIdempotent } from '../../http/idempotency/not-idempotent.decorator';
import { NotJsonApi } from '../../http/json-api/not-json-api.decorator';
import { FILE_ID_HEADER, FileUploadService } from './file-upload.service';

/**
 * Extension: resumable uploads (tus 1.0.0) at `/v1/files/uploads`. The API
 * key guard and the rate limit run as on every /v1 route; then the tus
 * server reads the raw Node request (Fastify does not parse a PATCH body,
 * see installBodyParsers).
 * An upload of another user or mode does not exist (404) before the tus
 * server sees the request.
 */
@Controller('v1/files/uploads')
@NotJsonApi()
export class FileUploadController {
  constructor(private readonly uploads: FileUploadService) {}

  /** Creation (optionally with the first bytes): Upload-Length and Upload-Metadata naming the variant. */
  @Post()
  @NotIdempotent()
  create(
    @CurrentPrincipal() principal: Principal,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return this.pass(principal, request, reply);
  }

  /** The offset to resume from; `Zest-File-Id` once the upload completed. */
  @Head(':id')
  async offset(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const info = await this.own(principal, id);
    if (info.fileId !== null)
      void reply.header(FILE_ID_HEADER, String(info.fileId));
    return this.pass(principal, request, reply);
  }

  /** Appends bytes at Upload-Offset; the last ones record the file. */
  @Patch(':id')
  async append(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    await this.own(principal, id);
    return this.pass(principal, request, reply);
  }

  /** Termination: the upload and its bytes go (a completed upload's file stays). */
  @Delete(':id')
  async terminate(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    await this.own(principal, id);
    return this.pass(principal, request, reply);
  }

  private async own(principal: Principal, id: string) {
    const info = await this.uploads.findOwn(principal, id);
    if (!info) throw AppError.notFound();
    return info;
  }

  /**
   * The tus server's answer goes out through Fastify (hooks, access log);
   * its refusals are thrown, so they are JSON:API errors like any other.
   */
  private async pass(
    principal: Principal,
    request: FastifyRequest,
    reply: FastifyReply,
  ) {
    const outcome = await this.uploads.respond(
      principal,
      request.raw,
      reply.raw,
    );
    if (outcome.response === undefined) throw outcome.error;
    const { response } = outcome;
    void reply.status(response.status);
    response.headers.forEach((value, name) => {
      // Fastify sets the length of what it sends.
      if (name !== 'content-length') void reply.header(name, value);
    });
    const body = await response.text();
    return reply.send(body === '' ? undefined : body);
  }
}
