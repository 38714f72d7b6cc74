import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import { parseIntegerId } from '../../common/ids';
import type { RawQuery } from '../../common/list-query';
import { Principal } from '../../common/principal';
import { SignedUrls } from '../../common/signed-urls.service';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { FILE_STORAGE } from '../../storage/file-storage';
import type { FileStorage } from '../../storage/file-storage';
import { InvoiceBillToService } from './invoice-bill-to.service';
import { invoiceFieldsFromQuery } from './invoice-fields';
import { InvoiceFonts, renderInvoicePdf } from './invoice-pdf';
import { InvoiceSource, InvoiceSources } from './invoice-source';
import { InvoiceData, InvoiceFields, InvoiceView } from './invoice-view';
import { InvoicePdfJob, InvoicePdfJobs } from './invoice.queue';
import { InvoiceErrors } from './invoice.errors';

/** Bump when the layout changes, so stored PDFs are rendered anew. */
const LAYOUT_VERSION = 1;
/** Seconds a client should wait before asking for a PDF that is being rendered. */
export const RETRY_AFTER_SECONDS = 2;
/** The link parameter naming stored bill-to details (`InvoiceBillToService`). */
export const BILL_TO_PARAM = 'bill_to';
/**
 * Query parameters of a download link that are not invoice fields. Links
 * issued before the details were stored carry the fields themselves; they
 * are still served.
 */
const LINK_PARAMS = ['owner', 'mode', 'signature', BILL_TO_PARAM];

/** Whose view of the record a link carries: the key holder who asked for it. */
export interface InvoiceScope {
  userId: number;
  testMode: boolean;
}

export type InvoiceDownload =
  | { ready: true; filename: string; size: number; stream: Readable }
  | { ready: false; retryAfterSeconds: number };

/** JSON with sorted keys, so equal views hash equally whatever their key order. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_, item: unknown) =>
    item && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(
          Object.entries(item).sort(([a], [b]) => (a < b ? -1 : 1)),
        )
      : item,
  );
}

/** Names the set of bill-to fields a file was rendered with. */
function fieldsTag(fields: InvoiceFields): string {
  return createHash('sha256')
    .update(canonicalJson(fields))
    .digest('hex')
    .slice(0, 16);
}

/**
 * Invoice PDFs for any registered source. A PDF is named by the hash of
 * everything it shows, so the same record and fields map to one job and one
 * file, and a record that changes (a refund) maps to a new one, which
 * replaces the old file once stored.
 */
@Injectable()
export class InvoiceService {
  private readonly logger = new Logger(InvoiceService.name);
  private readonly fonts: InvoiceFonts;

  constructor(
    private readonly sources: InvoiceSources,
    private readonly jobs: InvoicePdfJobs,
    private readonly billTo: InvoiceBillToService,
    private readonly signedUrls: SignedUrls,
    @Inject(FILE_STORAGE) private readonly storage: FileStorage,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.fonts = {
      regular: config.invoices.font,
      bold: config.invoices.boldFont,
    };
  }

  /**
   * generate-invoice: checks the record is visible, stores the bill-to
   * details, queues its PDF and returns the signed download link at once.
   * Neither the link nor the job carries the details, only their token.
   */
  async generate(
    principal: Principal,
    type: string,
    rawId: string,
    fields: InvoiceFields,
  ): Promise<string> {
    const source = this.source(type);
    const id = parseIntegerId(rawId);
    if (id === null) throw AppError.notFound();
    const data = await source.load(principal, id);
    if (!data) throw AppError.notFound();
    const scope: InvoiceScope = {
      userId: principal.userId,
      testMode: principal.testMode,
    };
    const billTo = await this.billTo.save(data, fields);
    const hash = this.contentHash(type, id, { ...data, fields });
    if (!(await this.storage.exists(this.storageKey(type, id, fields, hash)))) {
      // The link re-enqueues on its first poll, so a queue outage here only delays.
      await this.jobs
        .enqueue({ type, id, scope, billTo }, hash)
        .catch((error: unknown) =>
          this.logger.warn(
            { err: error, type, id },
            'Could not enqueue an invoice PDF',
          ),
        );
    }
    return this.link(type, id, scope, billTo);
  }

  /**
   * The signed, non-expiring download link of a record's invoice. Pure: no
   * I/O; the PDF is rendered on the link's first request. With a scope the
   * link reads the record as that user in that mode; with null (for
   * `urls.invoice_url`) the source must implement `loadLinked`. `billTo` is
   * a token from `InvoiceBillToService.save` (of the record's store and
   * mode), or null for the record's own customer details.
   */
  link(
    type: string,
    id: number,
    scope: InvoiceScope | null,
    billTo: string | null = null,
  ): string {
    const query = new URLSearchParams();
    if (billTo !== null) query.append(BILL_TO_PARAM, billTo);
    if (scope) {
      query.append('owner', String(scope.userId));
      query.append('mode', scope.testMode ? 'test' : 'live');
    }
    return this.signedUrls.sign(
      this.config.http.publicBaseUrl,
      `/invoices/${type}/${id}?${query.toString()}`,
    );
  }

  /** The PDF behind a link whose signature the route has checked. */
  async download(
    type: string,
    rawId: string,
    query: RawQuery,
  ): Promise<InvoiceDownload> {
    const source = this.source(type);
    const id = parseIntegerId(rawId);
    const scope = this.scopeOf(query);
    if (id === null || scope === undefined) throw AppError.notFound();
    const inline = invoiceFieldsFromQuery(query, LINK_PARAMS);
    const data = await this.loadFor(source, id, scope);
    if (!data) throw InvoiceErrors.invoiceGone();
    const token = query[BILL_TO_PARAM];
    let billTo: string | null = null;
    let fields = inline;
    if (token !== undefined) {
      // A signed link never has both; the guard has checked the signature.
      if (typeof token !== 'string' || Object.keys(inline).length > 0) {
        throw InvoiceErrors.invalidLink();
      }
      const stored = await this.billTo.find(data, token);
      if (!stored) throw InvoiceErrors.invoiceGone();
      billTo = token;
      fields = stored;
    }
    const hash = this.contentHash(type, id, { ...data, fields });
    const file = await this.storage.open(
      this.storageKey(type, id, fields, hash),
    );
    if (file) {
      const safeNumber = data.number.replace(/[^A-Za-z0-9_-]/g, '') || id;
      return {
        ready: true,
        filename: `invoice-${safeNumber}.pdf`,
        ...file,
      };
    }
    // A link from before the details were stored: store them now, so that
    // the job names them by token too.
    billTo ??= await this.billTo.save(data, fields);
    await this.jobs.enqueue({ type, id, scope, billTo }, hash);
    return { ready: false, retryAfterSeconds: RETRY_AFTER_SECONDS };
  }

  /**
   * The worker's half: renders and stores one PDF, then removes the versions
   * it replaces. Idempotent: a re-run overwrites the same key atomically
   * with the same content.
   */
  async render(job: InvoicePdfJob): Promise<void> {
    const source = this.source(job.type);
    const data = await this.loadFor(source, job.id, job.scope);
    if (!data) {
      this.logger.warn(
        { type: job.type, id: job.id },
        'Invoice record is gone; nothing to render',
      );
      return;
    }
    const fields = job.billTo
      ? await this.billTo.find(data, job.billTo)
      : (job.fields ?? {});
    if (!fields) {
      this.logger.warn(
        { type: job.type, id: job.id },
        'Invoice bill-to details not found for this record; nothing to render',
      );
      return;
    }
    const view: InvoiceView = { ...data, fields };
    const key = this.storageKey(
      job.type,
      job.id,
      fields,
      this.contentHash(job.type, job.id, view),
    );
    const pdf = await renderInvoicePdf(view, { fonts: this.fonts });
    await this.storage.put(key, pdf);
    await this.removeReplaced(source, job, fields, key).catch(
      (error: unknown) =>
        this.logger.warn(
          { err: error, type: job.type, id: job.id },
          'Could not remove replaced invoice PDFs',
        ),
    );
  }

  /**
   * A record that changed (a refund) hashes to a new file, and links always
   * hash the record as it is now, so the file of its earlier content (same
   * fields) is unreachable: delete it, but only while what was just stored
   * is still current, so a render of data read before a change never
   * removes the newer file. A download already streaming an old file keeps
   * its open handle; one that looked it up just before gets a 202 and its
   * next poll finds the new file.
   */
  private async removeReplaced(
    source: InvoiceSource,
    job: InvoicePdfJob,
    fields: InvoiceFields,
    stored: string,
  ): Promise<void> {
    const folder = `invoices/${job.type}/${job.id}`;
    const sameFields = `${folder}/${fieldsTag(fields)}-`;
    const replaced = (await this.storage.list(folder)).filter(
      (key) =>
        key !== stored &&
        // The layout before fields were part of the name: unreachable too.
        (key.startsWith(sameFields) || !key.slice(folder.length).includes('-')),
    );
    if (replaced.length === 0) return;
    const data = await this.loadFor(source, job.id, job.scope);
    const current =
      data &&
      this.storageKey(
        job.type,
        job.id,
        fields,
        this.contentHash(job.type, job.id, { ...data, fields }),
      );
    if (current !== stored) return;
    await Promise.all(replaced.map((key) => this.storage.delete(key)));
  }

  private source(type: string): InvoiceSource {
    const source = this.sources.get(type);
    if (!source) throw InvoiceErrors.noInvoiceSource();
    return source;
  }

  /** The link's scope; null when it has none, undefined when it is malformed. */
  private scopeOf(query: RawQuery): InvoiceScope | null | undefined {
    if (query.owner === undefined && query.mode === undefined) return null;
    const owner = typeof query.owner === 'string' ? query.owner : '';
    const userId = parseIntegerId(owner);
    if (userId === null) return undefined;
    if (query.mode !== 'test' && query.mode !== 'live') return undefined;
    return { userId, testMode: query.mode === 'test' };
  }

  /** A scoped link stands in for the key that asked for it: same user, same mode. */
  private loadFor(
    source: InvoiceSource,
    id: number,
    scope: InvoiceScope | null,
  ): Promise<InvoiceData | null> {
    if (scope) {
      const principal: Principal = { ...scope, apiKeyId: 0 };
      return source.load(principal, id);
    }
    return source.loadLinked ? source.loadLinked(id) : Promise.resolve(null);
  }

  private contentHash(
    type: string,
    id: number,
    view: InvoiceData & { fields: InvoiceFields },
  ): string {
    return createHash('sha256')
      .update(
        canonicalJson({
          layout: LAYOUT_VERSION,
          fonts: this.fonts,
          type,
          id,
          // Not shown on the PDF; undefined drops it from the JSON, so files
          // stored before the field existed keep their names.
          view: { ...view, storeId: undefined },
        }),
      )
      .digest('hex')
      .slice(0, 32);
  }

  /** One folder per record; the versions of one set of fields share a prefix. */
  private storageKey(
    type: string,
    id: number,
    fields: InvoiceFields,
    hash: string,
  ): string {
    return `invoices/${type}/${id}/${fieldsTag(fields)}-${hash}.pdf`;
  }
}
