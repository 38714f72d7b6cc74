import { ReceiptLicenseKey } from '../order/receipt-extras';

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
const escape = (value: string | number) =>
  String(value).replace(/[&<>"']/g, (c) => ESCAPES[c]);

const DATE = new Intl.DateTimeFormat('en-US', {
  dateStyle: 'medium',
  timeZone: 'UTC',
});

export interface ReceiptExtrasModel {
  licenseKeys: ReceiptLicenseKey[];
  terms: string[];
  invoiceUrl: string | null;
  portalUrl: string | null;
}

/**
 * What the receipt adds below its totals and downloads: the auto-renewal
 * terms, the license keys in full, the invoice and the customer portal.
 */
export function receiptSections(m: ReceiptExtrasModel): string {
  const parts: string[] = [];
  if (m.terms.length > 0) {
    parts.push(`<section>
<h2>Subscription terms</h2>
${m.terms.map((t) => `<p data-terms>${escape(t)}</p>`).join('\n')}
</section>`);
  }
  if (m.licenseKeys.length > 0) {
    const items = m.licenseKeys
      .map(
        (k) =>
          `<li><span class="muted">${escape(k.product)}</span><br><code data-license-key style="word-break:break-all">${escape(k.key)}</code><br><span class="muted">${
            k.activationLimit === null
              ? 'Unlimited activations'
              : `${k.activationLimit} activation${k.activationLimit === 1 ? '' : 's'}`
          }${k.expiresAt ? ` · expires ${escape(DATE.format(k.expiresAt))}` : ''}</span></li>`,
      )
      .join('\n');
    parts.push(`<section>
<h2>License key${m.licenseKeys.length === 1 ? '' : 's'}</h2>
<ul class="keys">
${items}
</ul>
</section>`);
  }
  const links = [
    m.invoiceUrl
      ? `<a href="${escape(m.invoiceUrl)}" data-invoice>Download the invoice (PDF)</a>`
      : '',
    m.portalUrl
      ? `<a href="${escape(m.portalUrl)}" data-portal>Manage your purchases</a>`
      : '',
  ].filter(Boolean);
  if (links.length > 0)
    parts.push(`<section>\n<p>${links.join(' · ')}</p>\n</section>`);
  return parts.join('\n');
}
