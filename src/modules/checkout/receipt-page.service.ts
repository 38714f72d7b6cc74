import { Injectable } from '@nestjs/common';
import { SignedUrls } from '../../common/signed-urls.service';
import { formatFileSize } from '../catalog/catalog-format';
import { CustomerService } from '../customer/customer.service';
import { DeliveryService } from '../delivery/delivery.service';
import { OrderView } from '../order/order.repository';
import { orderStatusLabel } from '../order/order-status';
import { OrderService } from '../order/order.service';
import { ReceiptExtras } from '../order/receipt-extras';
import { buyerTaxNumberLine, sellerLines } from '../store/store-legal';
import { renderReceiptPage } from './checkout.page';
import { CheckoutRepository } from './checkout.repository';
import { HostedResponse, messagePage, pageTotals } from './hosted-pages';
import { receiptSections } from './receipt-sections';

/**
 * The receipt page at an order's signed `urls.receipt`: the order, its
 * license keys in full, fresh download links, its terms, the invoice and
 * the customer portal.
 */
@Injectable()
export class ReceiptPageService {
  constructor(
    private readonly repository: CheckoutRepository,
    private readonly orders: OrderService,
    private readonly signedUrls: SignedUrls,
    private readonly delivery: DeliveryService,
    private readonly extras: ReceiptExtras,
    private readonly customers: CustomerService,
  ) {}

  /** The receipt at `urls.receipt`. */
  async receipt(identifier: string, url: string): Promise<HostedResponse> {
    const check = this.signedUrls.verify(url);
    if (check !== 'valid')
      return messagePage(403, 'Link invalid', 'This receipt link is invalid.');
    const order = await this.orders.findByIdentifier(identifier);
    if (!order)
      return messagePage(404, 'Not found', 'This order does not exist.');
    return {
      kind: 'html',
      status: 200,
      html: await this.receiptHtml(order),
    };
  }

  private async receiptHtml(order: OrderView): Promise<string> {
    const checkout = order.checkoutId
      ? await this.repository.findById(order.checkoutId)
      : null;
    const store = await this.repository.store(order.storeId);
    const options = checkout?.productOptions;
    const item = order.firstItem;
    const totals = pageTotals({
      currency: order.currency,
      currencyRate: order.currencyRate,
      subtotal: order.subtotal,
      discountTotal: order.discountTotal,
      setupFee: order.setupFee,
      tax: order.tax,
      total: order.total,
      subtotalUsd: order.subtotalUsd,
      discountTotalUsd: order.discountTotalUsd,
      setupFeeUsd: order.setupFeeUsd,
      taxUsd: order.taxUsd,
      totalUsd: order.totalUsd,
      taxName: order.taxName,
      taxRate: order.taxRate,
      taxInclusive: order.taxInclusive,
    });
    const failed = order.status === 'failed';
    // Fresh links on every view: they expire, the page does not.
    const downloads = await this.delivery.orderDownloads(order.id);
    const extras = failed ? '' : await this.receiptExtras(order);
    return renderReceiptPage({
      storeName: store?.name ?? '',
      seller: store
        ? sellerLines(store, order.billingCountry)
        : { name: '', lines: [] },
      invoiceNumber: order.invoiceNumber,
      buyerTaxNumber: buyerTaxNumberLine(order.billingCountry, order.taxNumber),
      buyerName: order.userName,
      orderNumber: order.orderNumber,
      status: orderStatusLabel(order.status),
      email: order.userEmail,
      productName: item?.productName ?? '',
      variantName: item?.variantName ?? '',
      quantity: item?.quantity ?? 1,
      totals,
      taxNote: order.taxNote,
      title: failed
        ? 'Payment failed'
        : options?.confirmation_title || 'Thanks for your order!',
      message: failed
        ? 'The payment was declined; nothing was charged.'
        : options?.receipt_thank_you_note ||
          options?.confirmation_message ||
          'Your purchase was successful.',
      button:
        options?.receipt_link_url && !failed
          ? {
              text: options.receipt_button_text || 'Continue',
              url: options.receipt_link_url,
            }
          : null,
      createdAt: order.createdAt.toISOString().slice(0, 10),
      downloads: downloads.map((download) => ({
        name: download.name,
        url: download.url,
        size: formatFileSize(download.size),
        remaining:
          download.downloadLimit === null
            ? null
            : Math.max(0, download.downloadLimit - download.downloadsUsed),
      })),
      extras,
    });
  }

  /** License keys in full, terms, the invoice and a portal link for every buyer. */
  private async receiptExtras(order: OrderView): Promise<string> {
    const [licenseKeys, terms, invoiceUrl] = await Promise.all([
      this.extras.licenseKeys(order),
      this.extras.terms(order),
      this.extras.invoiceUrl(order),
    ]);
    return receiptSections({
      licenseKeys,
      terms,
      invoiceUrl,
      portalUrl: this.customers.portalLink(order.customerId),
    });
  }
}
