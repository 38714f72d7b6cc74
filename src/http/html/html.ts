const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text for HTML element content and quoted attribute values. */
export function escapeHtml(value: string | number | null | undefined): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/**
 * Headers for server-rendered pages reached through signed links: never
 * cached, never framed, no scripts, and the signed URL is not sent on as a
 * Referer to any other origin.
 */
export const HTML_PAGE_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  // same-origin: `no-referrer` makes Chromium send `Origin: null` on the
  // pages' form posts, which the transport policy refuses.
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
};

const STYLE = `
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;background:#f7f7f8;color:#1f2328}
main{max-width:880px;margin:0 auto;padding:32px 20px}
h1{font-size:1.5rem;margin:0 0 4px}h2{font-size:1.1rem;margin:32px 0 8px}
p.sub{color:#59636e;margin:0 0 16px}
table{width:100%;border-collapse:collapse;background:#fff;border:1px solid #d1d9e0;border-radius:6px}
th,td{text-align:left;padding:8px 10px;border-bottom:1px solid #eef0f2;font-size:.92rem;vertical-align:top}
th{background:#f6f8fa;font-weight:600}
td.mono{font-family:ui-monospace,Menlo,Consolas,monospace;word-break:break-all}
p.empty{color:#59636e;background:#fff;border:1px solid #d1d9e0;border-radius:6px;padding:12px}
p.store{color:#59636e;font-weight:600;margin:0 0 8px}
div.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch}
section{margin-top:24px}
form{display:flex;flex-wrap:wrap;gap:8px;align-items:center;background:#fff;border:1px solid #d1d9e0;border-radius:6px;padding:12px}
label{font-weight:600;font-size:.92rem;flex-basis:100%}
input,select{font:inherit;box-sizing:border-box;height:40px;padding:6px 10px;border:1px solid #818b98;border-radius:6px;min-height:40px;background:#fff;color:#1f2328;max-width:100%}
button{font:inherit;font-weight:600;padding:8px 16px;min-height:40px;border:0;border-radius:6px;background:#1f6feb;color:#fff;cursor:pointer}
button:focus-visible,a:focus-visible,input:focus-visible,select:focus-visible{outline:3px solid #0969da;outline-offset:2px}
a{color:#0550ae}
p.notice{background:#dafbe1;border:1px solid #4ac26b;border-radius:6px;padding:12px;color:#1a4721}
p.notice.error{background:#ffebe9;border-color:#ff8182;color:#82071e}
form.inline{border:0;padding:4px 0;background:none;margin:0}
form.inline button{padding:4px 10px;min-height:32px;font-size:.85rem}
span.terms{color:#59636e;font-size:.85rem}
@media (max-width:600px){
main{padding:20px 14px}
table,tbody,tr,td{display:block;width:auto}
thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
tr{border-bottom:1px solid #d1d9e0;padding:6px 0}
td{border:0;padding:4px 12px;display:flex;gap:12px}
td[data-label]::before{content:attr(data-label);flex:0 0 7.5em;font-weight:600;color:#59636e}
}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
`;

/** A complete page; `body` must already be escaped HTML, `style` the page's own rules. */
export function htmlPage(title: string, body: string, style = ''): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>${STYLE}${style}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}
