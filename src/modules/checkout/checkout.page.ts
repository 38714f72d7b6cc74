import { escapeHtml } from '../../http/html/html';
import { renderPage } from '../../http/html/layout';
import { STRIPE_JS_URL, STRIPE_PAGE_SCRIPT } from './checkout-page-stripe';

/**
 * The hosted checkout and receipt pages: server-rendered HTML that works
 * without JavaScript. Every value from a merchant or a buyer goes through
 * `escape`; colours were validated as hex codes on input.
 */

export const escape = (value: string | number): string => escapeHtml(value);

/** Product descriptions are HTML; the page shows their text only. */
export function plainText(html: string): string {
  return html
    .replace(/<\/?(?:p|div|br|li|ul|ol|h[1-6]|blockquote|tr)\b[^>]*>/gi, ' ')
    .replace(/<[^>]*>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, ' ')
    .trim();
}

export interface PageTotals {
  subtotal: string;
  discount: string | null;
  setupFee: string | null;
  tax: string | null;
  taxLabel: string;
  total: string;
}

/** How the Payment Element is set up (Stripe.js `elements()` options). */
export interface StripeElementsModel {
  mode: 'payment' | 'setup';
  /** Stripe's units (payments). */
  amount: number | null;
  currency: string;
  /** The card is kept for renewals (subscriptions). */
  saveCard: boolean;
}

export interface CheckoutPageModel {
  /** The form's action: the page's own URL (path and query). */
  action: string;
  storeName: string;
  storeAvatar: string | null;
  productName: string;
  description: string;
  media: string[];
  variants: { id: number; name: string; price: string; selected: boolean }[];
  quantity: number;
  /** The chosen variant's `min_quantity` and `max_quantity`. */
  quantityLimits: { min: number; max: number };
  /** Pay what you want: the amount in major units, as typed or suggested. */
  amount: { currency: string; value: string; minimum: string } | null;
  values: {
    email: string;
    name: string;
    country: string;
    zip: string;
    state: string;
    taxNumber: string;
    discountCode: string;
  };
  show: { media: boolean; logo: boolean; desc: boolean; discount: boolean };
  dark: boolean;
  buttonColor: string | null;
  totals: PageTotals | null;
  /** Auto-renewal terms of a subscription price, shown under the total. */
  terms?: string | null;
  /** The applied discount, e.g. "LAUNCH: 20% off". */
  discountApplied: string | null;
  discountMessage: string | null;
  errors: string[];
  /** Too many declined cards: the page says so and its Pay button is off. */
  purchasesPaused: boolean;
  testMode: boolean;
  /**
   * The store takes cards through its Stripe account: the Payment Element
   * instead of a card field; `elements` null when nothing is to be paid
   * or saved (the form posts as it is).
   */
  stripe: {
    publishableKey: string;
    submission: string;
    elements: StripeElementsModel | null;
  } | null;
}

function totalsTable(totals: PageTotals): string {
  const rows = [
    `<tr><td>Subtotal</td><td data-total="subtotal">${escape(totals.subtotal)}</td></tr>`,
    totals.discount
      ? `<tr><td>Discount</td><td data-total="discount">−${escape(totals.discount)}</td></tr>`
      : '',
    totals.setupFee
      ? `<tr><td>Setup fee</td><td data-total="setup-fee">${escape(totals.setupFee)}</td></tr>`
      : '',
    totals.tax
      ? `<tr><td>${escape(totals.taxLabel)}</td><td data-total="tax">${escape(totals.tax)}</td></tr>`
      : '',
    `<tr class="total"><td>Total</td><td data-total="total">${escape(totals.total)}</td></tr>`,
  ];
  return `<table class="totals">${rows.join('')}</table>`;
}

export function renderCheckoutPage(model: CheckoutPageModel): string {
  const media =
    model.show.media && model.media.length > 0
      ? `<div class="media">${model.media.map((url) => `<img src="${escape(url)}" alt="">`).join('')}</div>`
      : '';
  const description =
    model.show.desc && model.description
      ? `<p class="muted">${escape(model.description)}</p>`
      : '';
  const variants =
    model.variants.length > 1
      ? `<fieldset><legend>Option</legend>${model.variants
          .map(
            (v) =>
              `<label class="variant"><span><input type="radio" name="variant_id" value="${v.id}"${v.selected ? ' checked' : ''}> ${escape(v.name)}</span><span>${escape(v.price)}</span></label>`,
          )
          .join('')}</fieldset>`
      : model.variants.length === 1
        ? `<input type="hidden" name="variant_id" value="${model.variants[0].id}">`
        : '';
  // Text, not type=number: the browser would refuse a low amount before the
  // server could say why, and number inputs read decimals by locale.
  const amount = model.amount
    ? `<label for="amount">Pay what you want (${escape(model.amount.currency)})</label>
<input type="text" id="amount" name="amount" inputmode="decimal" value="${escape(model.amount.value)}" autocomplete="off">
<div class="muted" data-amount="minimum">Minimum ${escape(model.amount.minimum)}</div>`
    : '';
  const errors =
    model.errors.length > 0
      ? `<div class="errors" role="alert">${model.errors.map((e) => `<div>${escape(e)}</div>`).join('')}</div>`
      : '';
  const discount = model.show.discount
    ? `<div class="row"><div><label for="discount_code">Discount code</label>
<input type="text" id="discount_code" name="discount_code" value="${escape(model.values.discountCode)}" autocomplete="off"></div>
<div><button type="submit" class="secondary" name="intent" value="apply">Apply</button></div></div>
${model.discountApplied ? `<div class="applied" data-discount="applied">${escape(model.discountApplied)}</div>` : ''}
${model.discountMessage ? `<div class="refused" data-discount="refused">${escape(model.discountMessage)}</div>` : ''}`
    : '';
  const paused = model.purchasesPaused
    ? '<div class="errors" role="status" data-checkout="paused">Purchases on this checkout are paused for a while after too many declined payments. Please try again later.</div>'
    : '';
  const stripe = model.stripe;
  const testHint = stripe
    ? ''
    : model.testMode
      ? '<p class="muted">Test mode: use card 4242 4242 4242 4242 (4000 0000 0000 0002 is declined).</p>'
      : '';
  const cardField = `<label for="card_number">Card number</label>
<input type="text" id="card_number" name="card_number" inputmode="numeric" autocomplete="cc-number" value="">`;
  const body = `<section>
<h1>${escape(model.productName)}</h1>
${description}
${media}
${model.totals ? totalsTable(model.totals) : ''}
${model.terms ? `<p class="muted" data-terms>${escape(model.terms)}</p>` : ''}
</section>
<section>
<h2>Checkout</h2>
${paused}
${errors}
<form method="post" action="${escape(model.action)}"${stripe ? stripeFormAttributes(stripe) : ''}>
${variants}
${amount}
<label for="quantity">Quantity</label>
<input type="number" id="quantity" name="quantity" min="${model.quantityLimits.min}" max="${model.quantityLimits.max}" value="${model.quantity}" aria-describedby="quantity-limits">
<div class="muted" id="quantity-limits" data-quantity-limits>${model.quantityLimits.min} to ${model.quantityLimits.max} per order</div>
<label for="email">Email</label>
<input type="email" id="email" name="email" value="${escape(model.values.email)}" autocomplete="email" required>
<label for="name">Name</label>
<input type="text" id="name" name="name" value="${escape(model.values.name)}" autocomplete="name" required>
<div class="row"><div><label for="country">Country</label>
<input type="text" id="country" name="billing_address[country]" value="${escape(model.values.country)}" maxlength="2" placeholder="US" autocomplete="country" required></div>
<div><label for="zip">ZIP / postal code</label>
<input type="text" id="zip" name="billing_address[zip]" value="${escape(model.values.zip)}" autocomplete="postal-code"></div>
<div><label for="state">State / province</label>
<input type="text" id="state" name="billing_address[state]" value="${escape(model.values.state)}" maxlength="2" placeholder="US, Canada" autocomplete="address-level1"></div></div>
<label for="tax_number">Tax number (optional)</label>
<input type="text" id="tax_number" name="tax_number" value="${escape(model.values.taxNumber)}">
${discount}
${stripe ? stripePayment(stripe) : cardField}
${testHint}
<button type="submit" class="pay" name="intent" value="pay"${model.purchasesPaused ? ' disabled' : ''}>Pay ${model.totals ? escape(model.totals.total) : ''}</button>
</form>
</section>`;
  return renderPage({
    title: `${model.productName} · ${model.storeName}`,
    body,
    columns: true,
    brand: {
      storeName: model.storeName,
      // The checkout's CSP allows the merchant's images (its media too).
      logoUrl: model.show.logo ? model.storeAvatar : null,
      buttonColor: model.buttonColor,
      dark: model.dark,
    },
    after: stripe?.elements
      ? `<script src="${STRIPE_JS_URL}"></script>\n<script>${STRIPE_PAGE_SCRIPT}</script>`
      : undefined,
  });
}

function stripeFormAttributes(
  stripe: NonNullable<CheckoutPageModel['stripe']>,
): string {
  const elements = stripe.elements;
  return ` data-stripe-key="${escape(stripe.publishableKey)}"${
    elements
      ? ` data-mode="${elements.mode}" data-currency="${escape(elements.currency)}"${elements.amount === null ? '' : ` data-amount="${elements.amount}"`} data-save="${elements.saveCard}"`
      : ''
  }`;
}

function stripePayment(stripe: NonNullable<CheckoutPageModel['stripe']>) {
  const submission = `<input type="hidden" name="submission" value="${escape(stripe.submission)}">`;
  if (!stripe.elements) return submission;
  return `${submission}
<label>Payment</label>
<div id="payment-element" data-payment-element></div>
<div class="errors" id="payment-message" role="alert" hidden></div>
<noscript><div class="errors">Paying by card needs JavaScript: cards are entered in Stripe’s secure form.</div></noscript>`;
}

export interface ReceiptPageModel {
  storeName: string;
  orderNumber: number;
  status: string;
  email: string;
  productName: string;
  variantName: string;
  quantity: number;
  totals: PageTotals;
  /** The reverse-charge wording of a B2B sale without tax. */
  taxNote: string | null;
  /** The seller: legal name, then address, VAT/GST number and domain lines. */
  seller: { name: string; lines: string[] };
  /** The store's invoice number, once the order is paid. */
  invoiceNumber: string | null;
  /** The buyer's tax number line of a B2B sale ("VAT number: DE…"). */
  buyerTaxNumber: string | null;
  buyerName: string;
  title: string;
  message: string;
  button: { text: string; url: string } | null;
  createdAt: string;
  /** The order's files with signed links; `remaining` null when unlimited. */
  downloads: {
    name: string;
    url: string;
    size: string;
    remaining: number | null;
  }[];
  /** Terms, license keys, invoice and portal links (receipt-sections.ts). */
  extras?: string;
}

function downloadsSection(downloads: ReceiptPageModel['downloads']): string {
  if (downloads.length === 0) return '';
  const items = downloads
    .map(
      (download) =>
        `<li><a href="${escape(download.url)}" download data-download>${escape(download.name)}</a> <span class="muted">${escape(download.size)}${download.remaining === null ? '' : ` · ${download.remaining} download${download.remaining === 1 ? '' : 's'} left`}</span></li>`,
    )
    .join('\n');
  return `<section>
<h2>Downloads</h2>
<ul class="downloads">
${items}
</ul>
<p class="muted">Links expire; reopen this page for fresh ones.</p>
</section>`;
}

/** The seller block (and the buyer's, with their tax number, on a B2B sale). */
function partiesSection(model: ReceiptPageModel): string {
  const block = (lines: string[]) => lines.map(escape).join('<br>');
  const buyer = model.buyerTaxNumber
    ? `<h2>Bought by</h2>
<p class="muted" data-buyer>${block([model.buyerName, model.buyerTaxNumber].filter(Boolean))}</p>`
    : '';
  return `<section>
<h2>Sold by</h2>
<p class="muted" data-seller>${block([model.seller.name, ...model.seller.lines])}</p>
${buyer}
</section>`;
}

export function renderReceiptPage(model: ReceiptPageModel): string {
  const body = `<section>
<h1>${escape(model.title)}</h1>
<p>${escape(model.message)}</p>
<p class="muted">Order <strong data-order-number>#${model.orderNumber}</strong>${model.invoiceNumber ? ` · Invoice no. <strong data-invoice-number>${escape(model.invoiceNumber)}</strong>` : ''} · ${escape(model.status)} · ${escape(model.createdAt)}</p>
<p class="muted">A receipt was sent to ${escape(model.email)}.</p>
${model.button ? `<p><a href="${escape(model.button.url)}">${escape(model.button.text)}</a></p>` : ''}
</section>
<section>
<h2>${escape(model.productName)}${model.variantName && model.variantName !== 'Default' ? ` · ${escape(model.variantName)}` : ''} × ${model.quantity}</h2>
${totalsTable(model.totals)}
${model.taxNote ? `<p class="muted" data-tax-note>${escape(model.taxNote)}</p>` : ''}
</section>
${partiesSection(model)}
${downloadsSection(model.downloads)}
${model.extras ?? ''}`;
  return renderPage({
    title: `Receipt #${model.orderNumber} · ${model.storeName}`,
    body,
    columns: true,
    brand: { storeName: model.storeName },
  });
}

export function renderMessagePage(title: string, message: string): string {
  return renderPage({
    title,
    body: `<section><h1>${escape(title)}</h1><p>${escape(message)}</p></section>`,
  });
}
