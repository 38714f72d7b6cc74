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
 * Referer.
 */
export const HTML_PAGE_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
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
`;

/** A complete page; `body` must already be escaped HTML. */
export function htmlPage(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}
