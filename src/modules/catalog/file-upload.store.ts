import { pipeline, Readable, Transform } from 'node:stream';
import { DataStore, ERRORS, Upload } from '@tus/utils';
import type { FileStorage } from '../../storage/file-storage';

/** How long an incomplete resumable upload is kept after its creation. */
export const UPLOAD_EXPIRATION_MS = 24 * 60 * 60 * 1000;

/** A resumable upload's state, kept as `uploads/{id}.json` next to its parts. */
export interface UploadInfo {
  id: string;
  /** Upload-Length: the whole file's size. */
  size: number;
  /** Bytes received and stored so far (the tus offset). */
  offset: number;
  /** Whose it is: the API key's user and mode that created it. */
  userId: number;
  testMode: boolean;
  variantId: number;
  name: string;
  sort: number | null;
  /** Upload-Metadata as the client sent it (returned by HEAD). */
  metadata: Record<string, string | null>;
  createdAt: string;
  /** The `files` record once the upload completed. */
  fileId: number | null;
}

const infoKey = (id: string) => `uploads/${id}.json`;
const partsPrefix = (id: string) => `uploads/${id}`;
/** Parts are named by their offset, zero-padded so that names sort. */
const partKey = (id: string, offset: number) =>
  `${partsPrefix(id)}/${String(offset).padStart(16, '0')}`;

/** Counts what passes. */
class Counter extends Transform {
  bytes = 0;
  override _transform(
    chunk: Buffer,
    _encoding: BufferEncoding,
    done: (error?: Error | null, data?: Buffer) => void,
  ) {
    this.bytes += chunk.length;
    done(null, chunk);
  }
}

/**
 * The tus DataStore of `/v1/files/uploads`, over Zest's FileStorage (local
 * disk or S3 alike): each PATCH's body is one part object, stored with the
 * storage's atomic `putStream` under the offset it starts at, and the
 * upload's state is a small JSON object. A PATCH cut short by the client
 * (the tus server ends the body stream when the connection drops) stores
 * what arrived, so the client resumes from there; a part is either all
 * there or absent, never half-written. On completion the parts are read
 * back in order as one stream (`content`) and go through FileService like
 * a multipart upload.
 */
export class FileUploadStore extends DataStore {
  constructor(private readonly storage: FileStorage) {
    super();
    this.extensions = [
      'creation',
      'creation-with-upload',
      'termination',
      'expiration',
    ];
  }

  async readInfo(id: string): Promise<UploadInfo | null> {
    if (!/^[a-f0-9]{32}$/.test(id)) return null;
    const stored = await this.storage.open(infoKey(id));
    if (!stored) return null;
    const chunks: Buffer[] = [];
    for await (const chunk of stored.stream) chunks.push(chunk as Buffer);
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as UploadInfo;
  }

  saveInfo(info: UploadInfo): Promise<void> {
    return this.storage.put(
      infoKey(info.id),
      Buffer.from(JSON.stringify(info)),
    );
  }

  /** The state was written by the creation hook (it knows the caller); this checks it is there. */
  override async create(upload: Upload): Promise<Upload> {
    if (!(await this.readInfo(upload.id))) throw ERRORS.FILE_NOT_FOUND;
    return upload;
  }

  override async getUpload(id: string): Promise<Upload> {
    const info = await this.readInfo(id);
    if (!info) throw ERRORS.FILE_NOT_FOUND;
    return new Upload({
      id,
      size: info.size,
      offset: info.offset,
      metadata: info.metadata,
      creation_date: info.createdAt,
    });
  }

  override async write(
    stream: Readable,
    id: string,
    offset: number,
  ): Promise<number> {
    const info = await this.readInfo(id);
    if (!info) throw ERRORS.FILE_NOT_FOUND;
    if (info.offset !== offset) throw ERRORS.INVALID_OFFSET;
    const counter = new Counter();
    const key = partKey(id, offset);
    // pipeline, not pipe: a body that fails fails the write (nothing stored).
    await this.storage.putStream(
      key,
      pipeline(stream, counter, () => {}),
    );
    if (counter.bytes === 0) {
      await this.storage.delete(key);
      return offset;
    }
    info.offset = offset + counter.bytes;
    await this.saveInfo(info);
    return info.offset;
  }

  /** The received bytes, part after part, as one stream (constant memory). */
  content(info: UploadInfo): Readable {
    const storage = this.storage;
    async function* parts() {
      let position = 0;
      while (position < info.offset) {
        const part = await storage.open(partKey(info.id, position));
        if (!part)
          throw new Error(`Upload ${info.id}: part ${position} is missing`);
        for await (const chunk of part.stream) yield chunk as Buffer;
        position += part.size;
      }
    }
    return Readable.from(parts(), { objectMode: false });
  }

  /** The parts only (after completion the state stays, for HEAD, until it expires). */
  async removeParts(id: string): Promise<void> {
    for (const key of await this.storage.list(partsPrefix(id)))
      await this.storage.delete(key);
  }

  override async remove(id: string): Promise<void> {
    await this.removeParts(id);
    await this.storage.delete(infoKey(id));
  }

  override getExpiration(): number {
    return UPLOAD_EXPIRATION_MS;
  }

  /** Uploads created longer ago than the expiration, complete or not: their parts and state. */
  override async deleteExpired(now = Date.now()): Promise<number> {
    let deleted = 0;
    for (const key of await this.storage.list('uploads')) {
      const match = /^uploads\/([a-f0-9]{32})\.json$/.exec(key);
      if (!match) continue;
      const info = await this.readInfo(match[1]);
      if (!info) continue;
      if (Date.parse(info.createdAt) + UPLOAD_EXPIRATION_MS > now) continue;
      await this.remove(info.id);
      deleted++;
    }
    return deleted;
  }
}
