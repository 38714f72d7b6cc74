import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { Server } from '@tus/server';
import type { Upload } from '@tus/utils';
import { NodeRequest } from 'srvx/node';
import { AppError } from '../../common/app-error';
import { parseIntegerId } from '../../common/ids';
import type { Principal } from '../../common/principal';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { FILE_STORAGE } from '../../storage/file-storage';
import type { FileStorage } from '../../storage/file-storage';
import { CatalogErrors } from './catalog.errors';
import { FileUploadStore, UploadInfo } from './file-upload.store';
import { checkFileName, FileService } from './file.service';
import { VariantRepository } from './variant.repository';

/** Where the tus server answers; an upload's URL is this plus its id. */
export const UPLOADS_PATH = '/v1/files/uploads';

/** Response header naming the `files` record of a completed upload. */
export const FILE_ID_HEADER = 'Zest-File-Id';

/** The srvx request the tus server hands to its hooks, with the Node request under it. */
interface NodeBackedRequest {
  runtime?: { node?: { req: IncomingMessage } };
}

const nodeOf = (req: unknown) => (req as NodeBackedRequest).runtime?.node?.req;

/** The tus server's answer, or the refusal to send in its place. */
export type UploadOutcome =
  | { response: Response; error?: undefined }
  | { error: unknown; response?: undefined };

/** The tus server's own refusals (`{ status_code, body }`), as the API's errors. */
function tusRefusal(status: number, body: string, maxBytes: number): AppError {
  const detail = body.trim() || 'The upload request was refused.';
  switch (status) {
    case 400:
      return CatalogErrors.malformedUpload(detail);
    case 404:
      return AppError.notFound();
    case 409:
      return CatalogErrors.uploadOffsetMismatch(
        `${detail}: ask HEAD for Upload-Offset and resume from there.`,
      );
    case 410:
      return CatalogErrors.uploadExpired();
    case 412:
      return CatalogErrors.tusResumableRequired();
    case 413:
      return CatalogErrors.fileTooLarge(maxBytes, true);
    default:
      return CatalogErrors.uploadRefused(status, detail);
  }
}

/**
 * Resumable uploads (tus 1.0.0: core, creation, creation-with-upload,
 * termination, expiration) through `@tus/server`, over FileStorage (see
 * FileUploadStore). The routes authenticate and check that an upload is the
 * caller's; this service creates uploads for variants in the caller's scope
 * and, when the last byte is in, records the file through FileService
 * (size limit, sniffed type, SHA-256, transaction), as `POST /v1/files`.
 */
@Injectable()
export class FileUploadService {
  private readonly logger = new Logger(FileUploadService.name);
  readonly store: FileUploadStore;
  private readonly server: Server;
  /** The caller of each request being handled, found by the hooks through the Node request. */
  private readonly callers = new WeakMap<IncomingMessage, Principal>();
  /** The error each failed request is answered with. */
  private readonly failures = new WeakMap<IncomingMessage, unknown>();
  private readonly maxBytes: number;

  constructor(
    private readonly files: FileService,
    private readonly variants: VariantRepository,
    @Inject(FILE_STORAGE) storage: FileStorage,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.maxBytes = config.storage.fileMaxBytes;
    this.store = new FileUploadStore(storage);
    this.server = new Server({
      path: UPLOADS_PATH,
      datastore: this.store,
      relativeLocation: true,
      maxSize: config.storage.fileMaxBytes,
      exposedHeaders: [FILE_ID_HEADER],
      onUploadCreate: (req, upload) => this.create(this.caller(req), upload),
      onUploadFinish: (req, upload) => this.finish(this.caller(req), upload),
      // Kept for the route, which answers it as every other error; the
      // tus server's own answer is then not sent.
      onResponseError: (req, error) => {
        const node = nodeOf(req);
        if (!node) return undefined;
        const refusal = error as { status_code?: unknown; body?: unknown };
        this.failures.set(
          node,
          error instanceof AppError
            ? error
            : typeof refusal.status_code === 'number' &&
                refusal.status_code < 500
              ? tusRefusal(
                  refusal.status_code,
                  typeof refusal.body === 'string' ? refusal.body : '',
                  config.storage.fileMaxBytes,
                )
              : error,
        );
        return undefined;
      },
    });
  }

  /**
   * Hands a request of an authenticated caller to the tus server (which
   * reads the body from the Node request) and returns its answer, or the
   * error to answer instead.
   */
  async respond(
    principal: Principal,
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<UploadOutcome> {
    this.callers.set(req, principal);
    const response = await this.server.handleWeb(new NodeRequest({ req, res }));
    const error = this.failures.get(req);
    if (error !== undefined) {
      this.failures.delete(req);
      return { error };
    }
    if (response.status >= 400)
      return {
        error: tusRefusal(
          response.status,
          await response.text(),
          this.maxBytes,
        ),
      };
    return { response };
  }

  /** The upload's state when it is the caller's (same user, same mode), else null. */
  async findOwn(principal: Principal, id: string): Promise<UploadInfo | null> {
    const info = await this.store.readInfo(id);
    return info &&
      info.userId === principal.userId &&
      info.testMode === principal.testMode
      ? info
      : null;
  }

  /** The worker's hourly job: uploads past their expiration go, with their parts. */
  deleteExpired(now?: number): Promise<number> {
    return this.store.deleteExpired(now);
  }

  private caller(req: unknown): Principal {
    const node = nodeOf(req);
    const principal = node && this.callers.get(node);
    if (!principal) throw new Error('A tus request reached no caller');
    return principal;
  }

  /**
   * Creation: the metadata names the variant (`variant`, one of the
   * caller's in the key's mode), the file's name (`filename` or `name`) and
   * optionally `sort`. The state is stored before the tus server answers.
   */
  private async create(principal: Principal, upload: Upload) {
    const metadata = upload.metadata ?? {};
    const variantId = parseIntegerId(String(metadata.variant ?? ''));
    if (variantId === null)
      throw CatalogErrors.malformedUpload(
        'Name the variant in the Upload-Metadata as "variant".',
      );
    const name = checkFileName(
      String(metadata.filename ?? metadata.name ?? ''),
    );
    let sort: number | null = null;
    if (metadata.sort !== undefined && metadata.sort !== null) {
      sort = Number(metadata.sort);
      if (!Number.isSafeInteger(sort) || sort < 0)
        throw CatalogErrors.malformedUpload(
          'The metadata "sort" must be a non-negative integer.',
        );
    }
    const [variant] = await this.variants.findInScope(principal, [variantId]);
    if (!variant) throw CatalogErrors.variantNotFound();
    if (upload.size === undefined)
      throw CatalogErrors.malformedUpload(
        'Send Upload-Length: deferred lengths are not supported.',
      );
    await this.store.saveInfo({
      id: upload.id,
      size: upload.size,
      offset: 0,
      userId: principal.userId,
      testMode: principal.testMode,
      variantId,
      name,
      sort,
      metadata,
      createdAt: new Date().toISOString(),
      fileId: null,
    });
    return {};
  }

  /**
   * The last byte is in: the parts, read back in order, go through
   * FileService as a multipart upload's body does. On success the parts are
   * removed and the state keeps the file's id (HEAD answers it until the
   * upload expires); on failure (the variant is gone, the file is empty)
   * the upload is removed, nothing is kept.
   */
  private async finish(principal: Principal, upload: Upload) {
    const info = await this.findOwn(principal, upload.id);
    if (!info) throw AppError.notFound();
    try {
      const file = await this.files.upload(
        principal,
        info.variantId,
        this.store.content(info),
        { name: info.name, sort: info.sort ?? undefined },
      );
      info.fileId = file.id;
      await this.store.saveInfo(info);
      await this.store.removeParts(info.id).catch((error: unknown) => {
        this.logger.warn({ err: error }, 'Could not remove upload parts');
      });
      return { headers: { [FILE_ID_HEADER]: String(file.id) } };
    } catch (error) {
      await this.store.remove(info.id).catch(() => undefined);
      throw error;
    }
  }
}
