import { ERROR_CATALOGUE, type ErrorCode } from '@idv/domain';

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function layout(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escape(title)}</title><style>body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
code{background:#f2f2f2;padding:.1em .3em;border-radius:3px}table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.3rem;text-align:left}</style>
</head><body>${body}</body></html>`;
}

/** One page per error code, generated from the catalogue the API itself uses. */
export function errorPage(code: string): string | null {
  if (!Object.hasOwn(ERROR_CATALOGUE, code)) return null;
  const entry = ERROR_CATALOGUE[code as ErrorCode];
  return layout(
    `Error ${code}`,
    `<p><a href="/errors">All errors</a></p><h1><code>${escape(code)}</code></h1>
<p>HTTP status <strong>${entry.status}</strong>, type <code>${entry.type}</code>.</p>
<h2>What happened</h2><p>${escape(entry.title)}</p><h2>What to do</h2><p>${escape(entry.remedy)}</p>
<h2>Shape</h2><pre>{"error":{"type":"${entry.type}","code":"${escape(code)}","message":"…","doc_url":"…/errors/${escape(code)}","request_id":"req_…","field":"…"}}</pre>`,
  );
}

export function errorIndex(): string {
  const rows = Object.entries(ERROR_CATALOGUE)
    .map(([code, e]) => `<tr><td><a href="/errors/${code}"><code>${code}</code></a></td><td>${e.status}</td><td>${escape(e.title)}</td></tr>`)
    .join('');
  return layout('Errors', `<h1>Errors</h1><p>Every error has the same shape; <code>code</code> is stable.</p><table><tr><th>code</th><th>status</th><th>meaning</th></tr>${rows}</table>`);
}

export function homePage(apiBaseUrl: string): string {
  return layout(
    'Identity verification service',
    `<h1>Identity verification service</h1><ul><li><a href="${escape(apiBaseUrl)}/v1/openapi.json">API reference (OpenAPI 3.1)</a></li><li><a href="/errors">Errors</a></li></ul>`,
  );
}
