import { createHash } from 'node:crypto';

/**
 * The hosted checkout's Stripe part: Stripe.js mounts the Payment Element
 * (the card never touches Zest); the page's script below submits the
 * buyer's details to Zest as JSON with the page's submission token, gets
 * the intent's client secret back and confirms it with Stripe.js, which
 * brings the buyer to Zest's return route (3-D Secure included). A refusal
 * goes to the return route too, where Zest records the failed payment and
 * shows the checkout again. The script is a constant, allowed by its hash
 * in the page's Content-Security-Policy.
 */
export const STRIPE_JS_URL = 'https://js.stripe.com/v3/';

export const STRIPE_PAGE_SCRIPT = `(function () {
  var form = document.querySelector('form[data-stripe-key]');
  if (!form || !form.getAttribute('data-mode')) return;
  var message = document.getElementById('payment-message');
  var pay = form.querySelector('button.pay');
  function show(text) { message.textContent = text || ''; message.hidden = !text; }
  if (typeof window.Stripe !== 'function') { show('The card form could not be loaded. Check your connection and reload the page.'); if (pay) pay.disabled = true; return; }
  var stripe = window.Stripe(form.getAttribute('data-stripe-key'));
  var mode = form.getAttribute('data-mode');
  var options = { mode: mode, currency: form.getAttribute('data-currency') };
  if (mode === 'payment') options.amount = Number(form.getAttribute('data-amount'));
  if (mode === 'payment' && form.getAttribute('data-save') === 'true') options.setupFutureUsage = 'off_session';
  var elements = stripe.elements(options);
  elements.create('payment').mount('#payment-element');
  form.addEventListener('submit', function (event) {
    if (event.submitter && event.submitter.value === 'apply') return;
    event.preventDefault();
    if (pay.disabled) return;
    pay.disabled = true;
    show('');
    run().catch(function () { show('The payment could not be started. Please try again.'); }).finally(function () { pay.disabled = false; });
  });
  async function run() {
    var checked = await elements.submit();
    if (checked.error) { show(checked.error.message); return; }
    var fields = {};
    new FormData(form).forEach(function (value, key) { if (typeof value === 'string') fields[key] = value; });
    var response = await fetch(form.action, { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(fields) });
    var answer = await response.json();
    if (!response.ok) { show((answer.errors || []).map(function (e) { return e.detail; }).join(' ') || 'The payment could not be started.'); return; }
    if (answer.redirect) { window.location.assign(answer.redirect); return; }
    var params = { elements: elements, clientSecret: answer.client_secret, confirmParams: { return_url: answer.return_url } };
    var result = answer.intent_type === 'setup' ? await stripe.confirmSetup(params) : await stripe.confirmPayment(params);
    if (!result.error) return;
    if (result.error.type === 'validation_error') { show(result.error.message); return; }
    window.location.assign(answer.return_url);
  }
})();`;

const SCRIPT_HASH = `'sha256-${createHash('sha256').update(STRIPE_PAGE_SCRIPT).digest('base64')}'`;

/**
 * The Content-Security-Policy of a page with the Payment Element: Stripe.js
 * and its frames (https://docs.stripe.com/security/guide#content-security-policy),
 * the page's own script by hash, its submit to Zest and Stripe's API.
 */
export const STRIPE_PAGE_CSP = [
  "default-src 'none'",
  `script-src https://js.stripe.com https://*.js.stripe.com ${SCRIPT_HASH}`,
  'frame-src https://js.stripe.com https://*.js.stripe.com https://hooks.stripe.com',
  "connect-src 'self' https://api.stripe.com",
  "style-src 'unsafe-inline'",
  'img-src https: http: data:',
  "base-uri 'none'",
  'frame-ancestors *',
].join('; ');
