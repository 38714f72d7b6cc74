import { escapeHtml } from './html';

/**
 * The one layout and stylesheet of every server-rendered page a buyer sees:
 * the hosted checkout, the receipt, message pages, the customer portal and
 * the subscription pages (README "Customer portal and receipts"). The
 * store's name (and logo) head the page, its button colour colours the
 * buttons, `dark` is the checkout's dark mode. The stylesheet is inline and
 * the pages load nothing from elsewhere but what the caller adds (the Stripe
 * checkout's script).
 */

export interface PageBrand {
  storeName: string;
  /** Shown when set; the caller passes only what its CSP allows. */
  logoUrl?: string | null;
  /** A validated hex colour (`#abc` or `#aabbcc`). */
  buttonColor?: string | null;
  dark?: boolean;
}

export interface PageLayout {
  title: string;
  /** Escaped HTML: the content of `<main>`. */
  body: string;
  brand?: PageBrand | null;
  /** Two columns side by side on wide screens (the checkout, the receipt). */
  columns?: boolean;
  /** Escaped HTML after `<main>` (scripts of the Stripe checkout). */
  after?: string;
  /** The page's own rules after the shared stylesheet (the Payment Element's). */
  style?: string;
}

const DEFAULT_BUTTON = '#5b3fd9';

/** White text on dark buttons, dark text on light ones (perceived brightness). */
export function buttonTextColor(hex: string): string {
  const full =
    hex.length === 4
      ? hex
          .slice(1)
          .split('')
          .map((c) => c + c)
          .join('')
      : hex.slice(1);
  const [r, g, b] = [0, 2, 4].map((i) => parseInt(full.slice(i, i + 2), 16));
  return (r * 299 + g * 587 + b * 114) / 1000 > 150 ? '#111827' : '#ffffff';
}

const HEX = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;

/** An image the pages' `img-src 'self' data:` policy allows. */
export function inlineLogo(url: string | null | undefined): string | null {
  if (!url) return null;
  return /^data:image\/(?:png|jpeg|gif|webp);base64,[a-z0-9+/=]+$/i.test(url)
    ? url
    : null;
}

function palette(brand: PageBrand | null | undefined): string {
  const button =
    brand?.buttonColor && HEX.test(brand.buttonColor)
      ? brand.buttonColor
      : DEFAULT_BUTTON;
  return `:root{--button:${button};--button-text:${buttonTextColor(button)}}`;
}

const STYLE = `
:root{--bg:#f5f6f8;--card:#fff;--text:#111827;--muted:#4b5563;--border:#e1e4e8;--field:#8a919c;--link:#0550ae;--focus:#0969da;--ok-bg:#e6f6ea;--ok:#14532d;--ok-border:#7dcf93;--bad-bg:#fdecec;--bad:#8a1c1c;--bad-border:#f3a5a5}
html.dark{--bg:#111827;--card:#1f2937;--text:#f9fafb;--muted:#b6bdc8;--border:#374151;--field:#6b7280;--link:#93c5fd;--focus:#93c5fd;--ok-bg:#12351f;--ok:#bbf7d0;--ok-border:#2f7a47;--bad-bg:#3b1212;--bad:#fecaca;--bad-border:#8f3434}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:var(--bg);color:var(--text)}
.brand{max-width:960px;margin:0 auto;padding:20px 16px 0;display:flex;align-items:center;gap:10px;font-weight:600;font-size:1.05rem}
.brand img,.brand .mark{width:32px;height:32px;border-radius:50%;flex:none}
.brand .mark{display:inline-flex;align-items:center;justify-content:center;background:var(--button);color:var(--button-text);font-size:.95rem}
main{max-width:960px;margin:0 auto;padding:16px 16px 40px;display:grid;gap:16px;grid-template-columns:minmax(0,1fr)}
main.columns{grid-template-columns:repeat(auto-fit,minmax(min(100%,320px),1fr));align-items:start}
main>.intro,main>h1,main>p{padding:0 4px;margin:0}
main>form,main>table{background:var(--card);border:1px solid var(--border);border-radius:12px;padding:20px}
section{background:var(--card);border:1px solid var(--border);border-radius:12px;padding:20px;min-width:0}
h1{font-size:1.5rem;line-height:1.25;margin:0 0 8px}
h2{font-size:1.1rem;line-height:1.3;margin:0 0 12px}
p{margin:0 0 12px}
section>:last-child,.intro>:last-child{margin-bottom:0}
.muted,.sub,.terms{color:var(--muted)}
.terms{font-size:.88rem}
a{color:var(--link)}
label{display:block;font-size:.9rem;font-weight:600;margin:12px 0 4px}
form>label:first-child,form>input[type=hidden]+label{margin-top:0}
input,select{font:inherit;width:100%;min-height:44px;padding:8px 10px;border:1px solid var(--field);border-radius:8px;background:var(--card);color:var(--text)}
input[type=radio],input[type=checkbox]{width:auto;min-height:0;margin:0 6px 0 0}
fieldset{border:1px solid var(--border);border-radius:8px;margin:12px 0 0;padding:8px 12px}
.variant{display:flex;justify-content:space-between;gap:8px;margin:4px 0;font-weight:400}
.row{display:flex;flex-wrap:wrap;gap:0 12px;align-items:flex-end}
.row>div{flex:1 1 140px;min-width:0}
.grid2{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,200px),1fr));gap:0 12px;align-items:end}
button{font:inherit;font-weight:600;border:0;border-radius:8px;padding:10px 18px;min-height:44px;cursor:pointer;background:var(--button);color:var(--button-text)}
button:disabled{opacity:.6;cursor:not-allowed}
button.secondary{background:var(--border);color:var(--text)}
button.pay{width:100%;margin-top:20px;padding:14px}
form>button[type=submit]{margin-top:12px}
form.inline{display:flex;flex-wrap:wrap;align-items:center;gap:6px;margin:6px 0 0}
form.inline button{margin:0;padding:4px 12px;min-height:32px;font-size:.85rem}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
table{width:100%;border-collapse:collapse}
th,td{text-align:left;padding:8px;border-bottom:1px solid var(--border);vertical-align:top;font-size:.93rem}
th{font-weight:600;color:var(--muted);font-size:.85rem}
tbody tr:last-child td{border-bottom:0}
td.mono{font-family:ui-monospace,Menlo,Consolas,monospace;word-break:break-all}
table.totals td{padding:6px 0;border:0;font-size:1rem}
table.totals td:last-child{text-align:right}
table.totals tr.total td{font-weight:700;border-top:1px solid var(--border);padding-top:10px}
div.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch}
.empty{color:var(--muted);margin:0}
.notice{background:var(--ok-bg);color:var(--ok);border:1px solid var(--ok-border);border-radius:8px;padding:12px 16px}
.notice.error,.errors{background:var(--bad-bg);color:var(--bad);border:1px solid var(--bad-border);border-radius:8px;padding:12px 16px;margin-bottom:16px}
.applied{color:var(--ok);font-size:.9rem;margin-top:4px}
.refused{color:var(--bad);font-size:.9rem;margin-top:4px}
.media img{max-width:100%;border-radius:8px;margin-top:12px}
ul.downloads{padding-left:20px;margin:0 0 12px}
.links{display:flex;flex-wrap:wrap;gap:8px 20px;padding:0 4px}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
#payment-element{min-height:44px;margin-top:4px}
#payment-message{margin:12px 0 0}
@media (max-width:600px){
.brand{padding:14px 12px 0}
main{padding:12px 12px 32px;gap:12px}
section{padding:16px;border-radius:10px}
table.cards,table.cards tbody,table.cards tr,table.cards td{display:block;width:auto}
table.cards thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
table.cards tr{border-bottom:1px solid var(--border);padding:6px 0}
table.cards tr:last-child{border-bottom:0}
table.cards td{border:0;padding:3px 0;display:flex;gap:12px}
table.cards td[data-label]::before{content:attr(data-label);flex:0 0 7.5em;font-weight:600;color:var(--muted)}
}
`;

function brandHeader(brand: PageBrand): string {
  const name = brand.storeName.trim();
  if (!name) return '';
  const mark = brand.logoUrl
    ? `<img src="${escapeHtml(brand.logoUrl)}" alt="">`
    : `<span class="mark" aria-hidden="true">${escapeHtml(name.charAt(0).toUpperCase())}</span>`;
  return `<header class="brand">${mark}<span>${escapeHtml(name)}</span></header>\n`;
}

/** A complete page. */
export function renderPage(page: PageLayout): string {
  const brand = page.brand ?? null;
  return `<!DOCTYPE html>
<html lang="en"${brand?.dark ? ' class="dark"' : ''}>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(page.title)}</title>
<style>${STYLE}${palette(brand)}${page.style ?? ''}</style>
</head>
<body>
${brand ? brandHeader(brand) : ''}<main${page.columns ? ' class="columns"' : ''}>
${page.body}
</main>${page.after ? `\n${page.after}` : ''}
</body>
</html>
`;
}

/** A page of the portal's kind: one column, the store's name on top when known. */
export function htmlPage(
  title: string,
  body: string,
  brand: PageBrand | null = null,
): string {
  return renderPage({ title, body, brand });
}
