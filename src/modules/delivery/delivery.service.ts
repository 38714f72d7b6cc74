import { Readable } from 'node:stream';
import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import rangeParser from 'range-parser';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { SignedUrls } from '../../common/signed-urls.service';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import type { ByteRange } from '../../storage/file-storage';
import { CatalogFile } from '../catalog/file.entity';
import { formatFileSize } from '../catalog/catalog-format';
import { CatalogErrors } from '../catalog/catalog.errors';
import { FileService } from '../catalog/file.service';
import {
  CustomerActivity,
  CustomerActivitySource,
  CustomerRef,
  PortalDownload,
  PortalLists,
} from '../customer/customer-activity';
import { DeliveryErrors } from './delivery.errors';
import { DeliveryItem, DeliveryRepository } from './delivery.repository';

/** A buyer's download link lives this long; pages and e-mails sign fresh ones on each view. */
export const DELIVERY_LINK_TTL_SECONDS = 24 * 3600;
/** The portal lists the files of this many recent paid orders. */
const PORTAL_ORDERS = 50;
/** A request resuming at an offset within this long of the last counted download is part of it. */
const RESUME_WINDOW_MS = 24 * 3600 * 1000;
/** A presigned S3 URL only has to last until the client follows the redirect. */
const PRESIGNED_TTL_SECONDS = 300;

/** One file of an order, as the receipt, the portal and the receipt e-mail list it. */
export interface OrderDownload {
  orderItemId: number;
  name: string;
  size: number;
  sha256: string | null;
  /** Signed, expiring, counted against the item's cap. */
  url: string;
  downloadsUsed: number;
  /** null: unlimited. */
  downloadLimit: number | null;
}

/** What the download route answers. */
export type DownloadAnswer =
  | { kind: 'redirect'; url: string; file: CatalogFile }
  | {
      kind: 'stream';
      file: CatalogFile;
      stream: Readable;
      range: ByteRange | null;
    };

/** Orders deliver their variants' files; refunds and caps end access. */
@Injectable()
export class DeliveryService implements CustomerActivitySource, OnModuleInit {
  constructor(
    private readonly activity: CustomerActivity,
    private readonly files: FileService,
    private readonly repository: DeliveryRepository,
    private readonly signedUrls: SignedUrls,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit() {
    this.activity.register(this);
  }

  /** The portal's Downloads: the files of the customer's recent paid orders, freshly signed. */
  async portal(customer: CustomerRef): Promise<Partial<PortalLists>> {
    const items = await this.repository.paidItemsOfCustomer(
      customer.id,
      PORTAL_ORDERS,
    );
    const downloads: PortalDownload[] = [];
    for (const item of items)
      for (const download of await this.itemDownloads(
        item,
        DELIVERY_LINK_TTL_SECONDS,
      ))
        downloads.push({
          orderNumber: item.orderNumber,
          name: download.name,
          size: formatFileSize(download.size),
          url: download.url,
          remaining:
            download.downloadLimit === null
              ? null
              : Math.max(0, download.downloadLimit - download.downloadsUsed),
        });
    return { downloads };
  }

  /**
   * Every file an order delivers, with a freshly signed link per order
   * item; none for an order that is not paid (pending, failed, refunded).
   * The receipt page, the portal and the receipt e-mail call this on each
   * view or send.
   */
  async orderDownloads(
    orderId: number,
    ttlSeconds = DELIVERY_LINK_TTL_SECONDS,
  ): Promise<OrderDownload[]> {
    const downloads: OrderDownload[] = [];
    for (const item of await this.repository.itemsOfOrder(orderId))
      downloads.push(...(await this.itemDownloads(item, ttlSeconds)));
    return downloads;
  }

  private async itemDownloads(
    item: DeliveryItem,
    ttlSeconds: number,
  ): Promise<OrderDownload[]> {
    if (item.orderStatus !== 'paid') return [];
    const expiresAt = new Date(this.clock.now().getTime() + ttlSeconds * 1000);
    return (
      await this.files.findDeliverable(item.variantId, item.purchasedAt)
    ).map((file) => ({
      orderItemId: item.id,
      name: file.name,
      size: file.size,
      sha256: file.sha256,
      url: this.signedUrls.sign(
        this.config.http.publicBaseUrl,
        `/downloads/${file.identifier}?item=${item.id}`,
        { expiresAt },
      ),
      downloadsUsed: item.downloads,
      downloadLimit: item.downloadLimit,
    }));
  }

  /**
   * A signed link's file (the route checked the signature): the merchant's
   * `download_url` (no item), or a buyer's, for one order item. A buyer's
   * download needs a paid order, counts once per download and stops at the
   * cap: a request that resumes at an offset within a day of the last
   * counted download belongs to it and is not counted again.
   */
  async download(
    identifier: string,
    itemId: number | null,
    rangeHeader: string | undefined,
  ): Promise<DownloadAnswer> {
    const file = await this.files.findByIdentifier(identifier);
    if (!file) throw AppError.notFound();
    if (itemId === null) {
      if (file.deletedAt) throw DeliveryErrors.fileUnavailable();
    } else {
      await this.admit(file, itemId, rangeHeader);
    }
    const presigned = await this.files.presignedUrl(
      file,
      PRESIGNED_TTL_SECONDS,
    );
    if (presigned) return { kind: 'redirect', url: presigned, file };
    const range = parseRange(file.size, rangeHeader);
    const opened = await this.files.open(file, range);
    if (!opened) throw DeliveryErrors.fileUnavailable();
    return { kind: 'stream', file, stream: opened.stream, range };
  }

  private async admit(
    file: CatalogFile,
    itemId: number,
    rangeHeader: string | undefined,
  ): Promise<void> {
    const item = await this.repository.findItem(itemId);
    if (!item || !this.delivers(item, file)) throw AppError.notFound();
    if (item.orderStatus === 'refunded') throw DeliveryErrors.orderRefunded();
    if (item.orderStatus !== 'paid') throw DeliveryErrors.orderNotPaid();
    if (
      resumes(rangeHeader) &&
      item.lastDownloadedAt &&
      this.clock.now().getTime() - item.lastDownloadedAt.getTime() <
        RESUME_WINDOW_MS
    )
      return;
    const counted = await this.repository.count(item.id, item.downloadLimit);
    if (counted === null)
      throw DeliveryErrors.downloadLimitReached(item.downloadLimit!);
  }

  private delivers(item: DeliveryItem, file: CatalogFile): boolean {
    return (
      file.variantId === item.variantId &&
      file.status === 'published' &&
      (file.deletedAt === null || file.deletedAt > item.purchasedAt)
    );
  }
}

/** Whether a `Range` asks for bytes past the start: the resumption of a counted download. */
function resumes(header: string | undefined): boolean {
  const match = header && /^bytes=(\d+)-/.exec(header.trim());
  return Boolean(match && Number(match[1]) > 0);
}

/**
 * One range of `bytes=…` (RFC 9110), or null for the whole file (no header,
 * another unit, or several ranges, which a download client never asks for).
 */
export function parseRange(
  size: number,
  header: string | undefined,
): ByteRange | null {
  if (!header) return null;
  const ranges = rangeParser(size, header, { combine: true });
  if (ranges === -1) throw CatalogErrors.rangeNotSatisfiable(size);
  if (ranges === -2 || ranges.type !== 'bytes' || ranges.length !== 1)
    return null;
  return { start: ranges[0].start, end: ranges[0].end };
}
