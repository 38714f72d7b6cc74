import { createHash } from 'node:crypto';
import { escapeHtml } from '../../http/html/html';
import { renderPage } from '../../http/html/layout';
import { STRIPE_JS_URL } from '../checkout/checkout-page-stripe';
import { SubscriptionView } from './billing-views';
import { STATUS_FORMATTED } from './subscription.state';

const DATE = new Intl.DateTimeFormat('en-US', {
  dateStyle: 'medium',
  timeZone: 'UTC',
});

/** A Stripe store's card form: the Payment Element's key and the signed route that opens the SetupIntent. */
export interface StripeCardForm {
  publishableKey: string;
  setupUrl: string;
}

export interface CardNotice {
  text: string;
  error: boolean;
}

/**
 * The script of a Stripe store's payment-method page: Stripe.js mounts the
 * Payment Element (mode setup: the card never touches Zest); Save posts to
 * the page's signed setup route for the SetupIntent's client secret and
 * confirms it with `stripe.confirmSetup` (3-D Secure included), which
 * brings the buyer to Zest's signed return route; a refusal goes there too.
 * A constant, allowed by its hash in the page's Content-Security-Policy.
 */
export const PORTAL_CARD_SCRIPT = `(function () {
  var form = document.querySelector('form[data-stripe-key]');
  if (!form) return;
  var message = document.getElementById('payment-message');
  var save = form.querySelector('button[type=submit]');
  function show(text) { message.textContent = text || ''; message.hidden = !text; }
  if (typeof window.Stripe !== 'function') { show('The card form could not be loaded. Check your connection and reload the page.'); save.disabled = true; return; }
  var stripe = window.Stripe(form.getAttribute('data-stripe-key'));
  var elements = stripe.elements({ mode: 'setup', currency: form.getAttribute('data-currency') });
  elements.create('payment').mount('#payment-element');
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    if (save.disabled) return;
    save.disabled = true;
    show('');
    run().catch(function () { show('The card could not be saved. Please try again.'); }).finally(function () { save.disabled = false; });
  });
  async function run() {
    var checked = await elements.submit();
    if (checked.error) { show(checked.error.message); return; }
    var response = await fetch(form.action, { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: '{}' });
    var answer = await response.json();
    if (!response.ok) { show((answer.errors || []).map(function (e) { return e.detail; }).join(' ') || 'The card could not be saved.'); return; }
    var result = await stripe.confirmSetup({ elements: elements, clientSecret: answer.client_secret, confirmParams: { return_url: answer.return_url } });
    if (!result.error) return;
    if (result.error.type === 'validation_error') { show(result.error.message); return; }
    window.location.assign(answer.return_url);
  }
})();`;

const SCRIPT_HASH = `'sha256-${createHash('sha256').update(PORTAL_CARD_SCRIPT).digest('base64')}'`;

/**
 * The CSP of a Stripe store's payment-method page: the portal pages' own
 * (forms to Zest only, never framed) plus Stripe.js, its frames and API
 * (https://docs.stripe.com/security/guide#content-security-policy) and the
 * page's script by hash.
 */
export const PORTAL_STRIPE_CSP = [
  "default-src 'none'",
  `script-src https://js.stripe.com https://*.js.stripe.com ${SCRIPT_HASH}`,
  'frame-src https://js.stripe.com https://*.js.stripe.com https://hooks.stripe.com',
  "connect-src 'self' https://api.stripe.com",
  "style-src 'unsafe-inline'",
  "img-src 'self' data: https://*.stripe.com",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

const CARD_STYLE =
  'form.card{display:block}#payment-element{min-height:44px;margin:4px 0 12px;width:100%}#payment-message{margin:0 0 12px}';

/** The payment-method page: the card on file, and a form for a new one, under the store's name. */
export function renderCardPage(
  s: SubscriptionView,
  storeName: string,
  notice: CardNotice | null,
  stripe: StripeCardForm | null,
): string {
  const card = s.cardLastFour
    ? `${s.cardBrand ?? 'card'} ending in ${s.cardLastFour}`
    : 'none on file';
  const next =
    s.status === 'cancelled' || s.status === 'expired'
      ? `Ends ${DATE.format(s.endsAt ?? s.renewsAt)}`
      : `Renews ${DATE.format(s.renewsAt)}`;
  const form = stripe
    ? `<form method="post" action="${escapeHtml(stripe.setupUrl)}" data-stripe-key="${escapeHtml(stripe.publishableKey)}" data-currency="${escapeHtml(s.currency.toLowerCase())}" class="card">
<label for="payment-element">Card</label>
<div id="payment-element" data-payment-element></div>
<p class="notice error" id="payment-message" role="alert" hidden></p>
<noscript><p class="notice error">Saving a card needs JavaScript: cards are entered in Stripe’s secure form.</p></noscript>
<button type="submit">Save card</button>
</form>
<script src="${STRIPE_JS_URL}"></script>
<script>${PORTAL_CARD_SCRIPT}</script>`
    : `<form method="post" action="${escapeHtml(s.urls.update_payment_method)}">
<label>Card number <input name="card_number" inputmode="numeric" autocomplete="cc-number" required></label>
<button type="submit">Save card</button>
</form>`;
  const message = notice
    ? `<p class="${notice.error ? 'notice error' : 'notice'}" role="status">${escapeHtml(notice.text)}</p>`
    : '';
  return renderPage({
    title: `${s.productName} subscription`,
    body: `<div class="intro"><h1>${escapeHtml(s.productName)} — ${escapeHtml(s.variantName)}</h1>
<p class="sub">${escapeHtml(STATUS_FORMATTED[s.status])} · ${escapeHtml(next)} · Card: <span data-card>${escapeHtml(card)}</span></p></div>
${message}
<section>
<h2>Update payment method</h2>
${form}
</section>
<p><a href="${escapeHtml(s.urls.customer_portal_update_subscription)}">Back to the subscription</a></p>`,
    brand: { storeName },
    style: stripe ? CARD_STYLE : '',
  });
}
