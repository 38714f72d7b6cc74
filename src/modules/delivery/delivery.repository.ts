import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** What a download link's order item says about access. */
export interface DeliveryItem {
  id: number;
  orderId: number;
  variantId: number;
  orderStatus: string;
  purchasedAt: Date;
  /** Downloads allowed for the item (the variant's cap); null is unlimited. */
  downloadLimit: number | null;
  downloads: number;
  /** When the last counted download started; null before the first. */
  lastDownloadedAt: Date | null;
}

interface ItemRow {
  id: number;
  order_id: number;
  variant_id: number;
  status: string;
  created_at: Date;
  download_limit: number | null;
  downloads: number | null;
  last_downloaded_at: Date | null;
}

const ITEM_SELECT = `
  SELECT item.id, item.order_id, item.variant_id, orders.status,
         item.created_at, variants.download_limit, counts.downloads,
         counts.last_downloaded_at
    FROM order_items item
    JOIN orders ON orders.id = item.order_id
    JOIN variants ON variants.id = item.variant_id
    LEFT JOIN order_item_downloads counts ON counts.order_item_id = item.id`;

function toItem(row: ItemRow): DeliveryItem {
  return {
    id: row.id,
    orderId: row.order_id,
    variantId: row.variant_id,
    orderStatus: row.status,
    purchasedAt: new Date(row.created_at),
    downloadLimit: row.download_limit,
    downloads: Number(row.downloads ?? 0),
    lastDownloadedAt: row.last_downloaded_at
      ? new Date(row.last_downloaded_at)
      : null,
  };
}

/**
 * Reads the order items that links point at (orders, items and the
 * variant's cap, read-only) and owns the download counters.
 */
@Injectable()
export class DeliveryRepository {
  constructor(private readonly dataSource: DataSource) {}

  async findItem(id: number): Promise<DeliveryItem | null> {
    const rows: ItemRow[] = await this.dataSource.query(
      `${ITEM_SELECT} WHERE item.id = $1`,
      [id],
    );
    return rows[0] ? toItem(rows[0]) : null;
  }

  /** The customer's paid orders (newest first, at most `limit`): their numbers and items. */
  async paidItemsOfCustomer(
    customerId: number,
    limit: number,
  ): Promise<(DeliveryItem & { orderNumber: number })[]> {
    const rows: (ItemRow & { order_number: number })[] =
      await this.dataSource.query(
        `${ITEM_SELECT.replace('SELECT', 'SELECT orders.order_number,')}
          WHERE item.order_id IN (
            SELECT id FROM orders WHERE customer_id = $1 AND status = 'paid'
             ORDER BY created_at DESC, id DESC LIMIT $2)
          ORDER BY item.order_id DESC, item.id`,
        [customerId, limit],
      );
    return rows.map((row) => ({
      ...toItem(row),
      orderNumber: row.order_number,
    }));
  }

  async itemsOfOrder(orderId: number): Promise<DeliveryItem[]> {
    const rows: ItemRow[] = await this.dataSource.query(
      `${ITEM_SELECT} WHERE item.order_id = $1 ORDER BY item.id`,
      [orderId],
    );
    return rows.map(toItem);
  }

  /**
   * Counts one download unless the cap is reached, atomically: the row lock
   * of the upsert serialises parallel downloads of one item, so the cap
   * holds. Returns the new count, or null when the cap refused it.
   */
  async count(itemId: number, limit: number | null): Promise<number | null> {
    const rows: { downloads: number }[] = await this.dataSource.query(
      `INSERT INTO order_item_downloads (order_item_id, downloads, last_downloaded_at)
       VALUES ($1, 1, now())
       ON CONFLICT (order_item_id) DO UPDATE
         SET downloads = order_item_downloads.downloads + 1,
             last_downloaded_at = now()
         WHERE $2::integer IS NULL OR order_item_downloads.downloads < $2::integer
       RETURNING downloads`,
      [itemId, limit],
    );
    return rows[0] ? Number(rows[0].downloads) : null;
  }
}
