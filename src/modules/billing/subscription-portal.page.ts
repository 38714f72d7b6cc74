import { escapeHtml } from '../../http/html/html';
import { htmlPage } from '../../http/html/layout';
import {
  PlanQuote,
  SubscriptionPortalModel,
} from './subscription-self-service';
import { STATUS_FORMATTED } from './subscription.state';

const DATE = new Intl.DateTimeFormat('en-US', {
  dateStyle: 'medium',
  timeZone: 'UTC',
});

const REASONS: Record<string, string> = {
  initial: 'First payment',
  renewal: 'Renewal',
  updated: 'Plan change',
};

export interface PortalNotice {
  kind: 'success' | 'error';
  text: string;
}

function notice(n: PortalNotice | null): string {
  if (!n) return '';
  return n.kind === 'error'
    ? `<p class="notice error" role="alert">${escapeHtml(n.text)}</p>`
    : `<p class="notice" role="status">${escapeHtml(n.text)}</p>`;
}

function form(action: string, fields: string, button: string, id: string) {
  return `<form method="post" action="${escapeHtml(action)}" id="${id}">
${fields}<button type="submit">${escapeHtml(button)}</button>
</form>`;
}

function planSection(m: SubscriptionPortalModel): string {
  const s = m.subscription;
  const others = m.plans.filter((p) => !p.current);
  if (s.status === 'cancelled' || s.status === 'expired' || others.length === 0)
    return '';
  const options = m.plans
    .map(
      (p) =>
        `<option value="${p.variantId}"${p.current ? ' selected' : ''}>${escapeHtml(p.name)}: ${escapeHtml(p.price)}${p.current ? ' (current)' : ''}</option>`,
    )
    .join('');
  return `<section>
<h2>Change plan</h2>
${form(
  m.actions.planPreview,
  `<label for="plan-variant">Plan</label>
<select id="plan-variant" name="variant_id">${options}</select>
`,
  'Review change',
  'plan-form',
)}
</section>`;
}

function quantitySection(m: SubscriptionPortalModel): string {
  const s = m.subscription;
  if (!m.quantity || s.status === 'cancelled' || s.status === 'expired')
    return '';
  return `<section>
<h2>Quantity</h2>
${form(
  m.actions.quantity,
  `<label for="quantity">Seats or units (${m.quantity.min} to ${m.quantity.max})</label>
<input id="quantity" name="quantity" type="number" inputmode="numeric" min="${m.quantity.min}" max="${m.quantity.max}" value="${m.quantity.value}" required>
`,
  'Update quantity',
  'quantity-form',
)}
</section>`;
}

function cancelSection(m: SubscriptionPortalModel): string {
  const s = m.subscription;
  if (s.status === 'expired') return '';
  if (s.status === 'cancelled') {
    const ended = s.endsAt !== null && s.endsAt <= m.now;
    return `<section>
<h2>Resume</h2>
<p>Cancelled: ${ended ? 'ended' : 'ends'} on ${escapeHtml(DATE.format(s.endsAt ?? s.renewsAt))}.</p>
${ended ? '' : form(m.actions.resume, '', 'Resume subscription', 'resume-form')}
</section>`;
  }
  return `<section>
<h2>Cancel</h2>
<p>Cancelling stops renewals; you keep access until the end of the period you paid for.</p>
${form(m.actions.cancel, '', 'Cancel subscription', 'cancel-form')}
</section>`;
}

function invoicesSection(m: SubscriptionPortalModel): string {
  if (m.invoices.length === 0)
    return `<section>\n<h2>Invoices</h2>\n<p class="empty">No invoices yet.</p>\n</section>`;
  const rows = m.invoices
    .map(
      (i) =>
        `<tr><td data-label="Date">${escapeHtml(DATE.format(i.date))}</td><td data-label="For">${escapeHtml(REASONS[i.reason] ?? i.reason)}</td><td data-label="Total">${escapeHtml(i.total)}</td><td data-label="Status">${escapeHtml(i.status)}</td><td data-label="Invoice">${
          i.url
            ? `<a href="${escapeHtml(i.url)}" rel="noopener noreferrer">PDF<span class="visually-hidden"> invoice of ${escapeHtml(DATE.format(i.date))}</span></a>`
            : '—'
        }</td></tr>`,
    )
    .join('\n');
  return `<section>
<h2>Invoices</h2>
<div class="scroll"><table class="cards">
<thead><tr><th>Date</th><th>For</th><th>Total</th><th>Status</th><th>Invoice</th></tr></thead>
<tbody>
${rows}
</tbody>
</table></div>
</section>`;
}

function header(m: SubscriptionPortalModel): string {
  const s = m.subscription;
  const card = s.cardLastFour
    ? `${s.cardBrand ?? 'card'} ending in ${s.cardLastFour}`
    : 'none on file';
  const next =
    s.status === 'cancelled' || s.status === 'expired'
      ? `Ends ${DATE.format(s.endsAt ?? s.renewsAt)}`
      : `Renews ${DATE.format(s.renewsAt)}`;
  return `<div class="intro"><h1>${escapeHtml(s.productName)} — ${escapeHtml(s.variantName)}</h1>
<p class="sub">${escapeHtml(STATUS_FORMATTED[s.status])} · ${escapeHtml(next)} · Card: ${escapeHtml(card)}</p></div>`;
}

/** The subscription's portal page: terms, self-service forms, invoices. */
export function renderSubscriptionPortal(
  m: SubscriptionPortalModel,
  n: PortalNotice | null,
): string {
  const s = m.subscription;
  const body = [
    header(m),
    notice(n),
    m.terms
      ? `<section>\n<h2>Terms</h2>\n<p data-terms>${escapeHtml(m.terms)}</p>\n</section>`
      : '',
    planSection(m),
    quantitySection(m),
    cancelSection(m),
    invoicesSection(m),
    `<p class="links"><a href="${escapeHtml(s.urls.update_payment_method)}">Update payment method</a> <a href="${escapeHtml(s.urls.customer_portal)}">All your purchases</a></p>`,
  ]
    .filter(Boolean)
    .join('\n');
  return htmlPage(`${s.productName} subscription`, body, {
    storeName: m.storeName,
  });
}

/** The plan change priced, with the form that confirms it. */
export function renderPlanQuote(
  m: SubscriptionPortalModel,
  quote: PlanQuote,
): string {
  const effect =
    quote.net > 0
      ? `${quote.netFormatted} for the rest of this period is added to your next renewal.`
      : quote.net < 0
        ? `${quote.netFormatted} for the unused part of this period is credited to your next renewal.`
        : 'Nothing is charged or credited for the current period.';
  const body = [
    header(m),
    `<section>
<h2>Confirm plan change</h2>
<p>Switch to <strong>${escapeHtml(quote.planName)}</strong>: ${escapeHtml(quote.price)}.</p>
<p data-proration="${quote.net}">${escapeHtml(effect)}</p>
${form(
  m.actions.plan,
  `<input type="hidden" name="variant_id" value="${quote.variantId}">
`,
  'Confirm plan change',
  'plan-confirm-form',
)}
<p><a href="${escapeHtml(m.subscription.urls.customer_portal_update_subscription)}">Keep my current plan</a></p>
</section>`,
  ].join('\n');
  return htmlPage(`Change plan: ${m.subscription.productName}`, body, {
    storeName: m.storeName,
  });
}
