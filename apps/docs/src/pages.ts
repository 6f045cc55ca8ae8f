import { ERROR_CATALOGUE, WEBHOOK_EVENT_CATALOGUE, eventBodyText } from '@idv/domain';
import { WEBHOOK_HEADERS, signWebhook } from '@idv/webhooks';
import { escapeHtml } from './layout.ts';
import { slugify } from './markdown.ts';

/**
 * The pages generated from the code rather than written: the error pages (from the catalogue the
 * API builds its errors from, at the address of every error's doc_url), the webhook event
 * catalogue (from the catalogue endpoint creation validates against, with bodies serialised by
 * the dispatcher's own function and signed by its own signer), the API reference's frame, the
 * home and the search page.
 */
export interface GeneratedPage {
  url: string;
  title: string;
  body: string;
  description: string;
  /** What the search index holds for it: one entry per section. */
  sections: { anchor: string | null; heading: string; text: string }[];
  scripts?: string[];
  wide?: boolean;
}

const code = (s: string) => `<code>${escapeHtml(s)}</code>`;

export function errorPages(): GeneratedPage[] {
  const pages = Object.entries(ERROR_CATALOGUE).map(([c, entry]): GeneratedPage => ({
    url: `/errors/${c}`,
    title: `Error ${c}`,
    description: entry.title,
    body: `<p><a href="/errors">All errors</a></p><h1>${code(c)}</h1>
<p>HTTP status <strong>${entry.status}</strong>, type ${code(entry.type)}.</p>
<h2 id="what-happened">What happened</h2><p>${escapeHtml(entry.title)}</p><h2 id="what-to-do">What to do</h2><p>${escapeHtml(entry.remedy)}</p>
<h2 id="shape">Shape</h2><div class="code"><pre tabindex="0"><code>{"error":{"type":"${entry.type}","code":"${escapeHtml(c)}","message":"…","doc_url":"…/errors/${escapeHtml(c)}","request_id":"req_…","field":"…"}}</code></pre></div>
<p>See <a href="/guides/authentication#requests-and-errors">Requests and errors</a> for the shape every error shares.</p>`,
    sections: [{ anchor: null, heading: c, text: `${c} ${entry.status} ${entry.type} ${entry.title} ${entry.remedy}` }],
  }));
  const rows = Object.entries(ERROR_CATALOGUE)
    .map(([c, e]) => `<tr><td><a href="/errors/${c}">${code(c)}</a></td><td>${e.status}</td><td>${escapeHtml(e.title)}</td></tr>`)
    .join('');
  const index: GeneratedPage = {
    url: '/errors',
    title: 'Errors',
    description: 'Every error code of the API, its status and what to do about it.',
    body: `<h1>Errors</h1><p>Every error has the same shape; ${code('code')} is stable and ${code('doc_url')} points at its page here.</p>
<div class="table-wrap" tabindex="0" role="region" aria-label="Error codes"><table><thead><tr><th scope="col">code</th><th scope="col">status</th><th scope="col">meaning</th></tr></thead><tbody>${rows}</tbody></table></div>`,
    sections: [{ anchor: null, heading: 'Errors', text: 'error codes status doc_url shape' }],
  };
  return [index, ...pages];
}

/** The secret the example deliveries are signed with, so a reader can check a verifier against them. */
const EXAMPLE_WEBHOOK_SECRET = 'whsec_docs_example_only';

export function webhookEventsPage(): GeneratedPage {
  const sections: GeneratedPage['sections'] = [];
  const parts = WEBHOOK_EVENT_CATALOGUE.map((entry, i) => {
    const body = eventBodyText(entry.example);
    const timestamp = Math.floor(Date.parse(entry.example.occurred_at) / 1000) + 1;
    const headers = [
      `content-type: application/json`,
      `${WEBHOOK_HEADERS.event}: ${entry.type}`,
      `${WEBHOOK_HEADERS.delivery}: dlv_01m7ym09t80f4fggxqxy1yr5${String(10 + i)}`,
      `${WEBHOOK_HEADERS.timestamp}: ${timestamp}`,
      `${WEBHOOK_HEADERS.signature}: ${signWebhook(EXAMPLE_WEBHOOK_SECRET, timestamp, body)}`,
    ].join('\n');
    const anchor = slugify(entry.type);
    sections.push({ anchor, heading: entry.type, text: `${entry.type} ${entry.sent_when} ${entry.data_description}` });
    return `<section aria-labelledby="${anchor}"><h2 id="${anchor}">${code(entry.type)}</h2>
<p><strong>Sent when:</strong> ${escapeHtml(entry.sent_when)}</p><p><strong>data:</strong> ${escapeHtml(entry.data_description)}</p>
<p>Headers of a delivery:</p><div class="code"><pre tabindex="0"><code>${escapeHtml(headers)}</code></pre></div>
<p>Body, exactly the bytes sent (shown indented; the signature covers the compact form <code>JSON.stringify</code> gives):</p>
<div class="code"><pre tabindex="0"><code class="language-json">${escapeHtml(JSON.stringify(JSON.parse(body), null, 2))}</code></pre></div></section>`;
  });
  const list = WEBHOOK_EVENT_CATALOGUE.map((e) => `<li><a href="#${slugify(e.type)}">${code(e.type)}</a></li>`).join('');
  return {
    url: '/webhooks/events',
    title: 'Webhook events',
    description: 'Every webhook event the service sends, when, and an example delivery of each.',
    body: `<h1>Webhook events</h1>
<p>Every event the service sends, generated from the catalogue the service itself validates subscriptions against (<code>GET /v1/webhook-events</code> answers the same list). Bodies carry identifiers, codes and timestamps, never personal data. How deliveries are signed, retried and replayed: <a href="/guides/webhooks">Webhooks</a>.</p>
<p>The example deliveries are signed with the secret ${code(EXAMPLE_WEBHOOK_SECRET)}: check your verifier against them (with a tolerance wide enough for their timestamps).</p>
<ul>${list}</ul>${parts.join('\n')}`,
    sections: [{ anchor: null, heading: 'Webhook events', text: 'Every webhook event the service sends, when, and an example delivery of each: headers, signature and body.' }, ...sections],
  };
}

export function referencePage(openapi: { info: { title: string; version: string }; paths: Record<string, Record<string, { operationId?: string; summary?: string; description?: string; tags?: string[] }>> }, scripts: string[]): GeneratedPage {
  const sections: GeneratedPage['sections'] = [];
  for (const [path, item] of Object.entries(openapi.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!op || typeof op !== 'object' || !op.operationId) continue;
      // Found by its short name, as the reference's menu lists it, with its method and path.
      const route = `${method.toUpperCase()} ${path}`;
      sections.push({ anchor: `operation/${op.operationId}`, heading: op.summary ? `${op.summary} (${route})` : route, text: `${op.operationId} ${op.summary ?? ''} ${op.description ?? ''}` });
    }
  }
  return {
    url: '/reference',
    title: 'API reference',
    description: `${openapi.info.title} ${openapi.info.version}: every route, its parameters, bodies and errors.`,
    wide: true,
    scripts,
    body: `<h1 class="visually-hidden">API reference</h1>
<p class="reference-note">Rendered from <a href="/openapi.json">openapi.json</a> (OpenAPI 3.1, the document the service serves at <code>GET /v1/openapi.json</code>) by Redoc, served from this site.</p>
<div id="redoc"><noscript><p>The reference needs JavaScript. The document itself: <a href="/openapi.json">openapi.json</a>.</p></noscript></div>`,
    sections,
  };
}

export function homePage(groups: { title: string; items: { title: string; url: string; description?: string }[] }[]): GeneratedPage {
  const cards = groups
    .map((g) => `<h2>${escapeHtml(g.title)}</h2><ul class="cards">${g.items.map((i) => `<li><a href="${escapeHtml(i.url)}">${escapeHtml(i.title)}</a>${i.description ? `<p>${escapeHtml(i.description)}</p>` : ''}</li>`).join('')}</ul>`)
    .join('');
  return {
    url: '/',
    title: 'Identity verification service',
    description: 'An open, self-hostable identity verification service: guides, quick start, API reference.',
    body: `<h1>Identity verification service</h1>
<p>An open, self-hostable identity verification service: your back end opens a case for a person, hands them a journey link, the person captures their document and a selfie, the service checks them and decides, and you learn the outcome by signed webhook. Everything runs on your machines.</p>
<p class="cta"><a class="button" href="/quickstart">Quick start: an approved sandbox case in ten minutes</a></p>${cards}`,
    sections: [{ anchor: null, heading: 'Home', text: 'identity verification service self-hostable quick start' }],
  };
}

export function searchPage(): GeneratedPage {
  return {
    url: '/search',
    title: 'Search',
    description: 'Search the whole documentation.',
    body: `<h1>Search</h1>
<form class="search-page" role="search" action="/search" method="get"><label for="search-q">Words to look for</label>
<div class="search-row"><input id="search-q" name="q" type="search" autocomplete="off"><button type="submit">Search</button></div></form>
<p id="search-status" role="status" aria-live="polite"></p><ol id="search-results" class="search-results"></ol>
<noscript><p>Search runs in your browser and needs JavaScript; the <a href="/">home page</a> lists every page.</p></noscript>`,
    sections: [],
  };
}

export function notFoundPage(): GeneratedPage {
  return {
    url: '/404',
    title: 'Page not found',
    description: '',
    body: `<h1>Page not found</h1><p>No page has this address. <a href="/search">Search</a> the documentation or start from the <a href="/">home page</a>.</p>`,
    sections: [],
  };
}
