import { escapeHtml } from './layout.ts';

/**
 * The addresses of the service a page's commands talk to. The pages are written with a default
 * start's (`http://localhost:8080` for the API...); a page whose samples run (the quick start)
 * shows the addresses of the service that serves it instead, or those a publication build was
 * given. One replacement, used by the build, the docs server and the samples' test.
 */
export interface SiteAddresses {
  api: string;
  journey: string;
  console: string;
  docs: string;
}

/** What the pages are written with: packages/config's defaults (tests/docs/site.test.ts holds the two together). */
export const WRITTEN_ADDRESSES: SiteAddresses = {
  api: 'http://localhost:8080',
  journey: 'http://localhost:8081',
  console: 'http://localhost:8082',
  docs: 'http://localhost:8083',
};

/** The variables of the service's configuration the addresses are read from (PORT: API_BASE_URL's default). */
export const ADDRESS_VARIABLES = ['PORT', 'API_BASE_URL', 'JOURNEY_URL', 'CONSOLE_URL', 'DOCS_URL'] as const;

/** The addresses a service is configured with (API_BASE_URL, JOURNEY_URL, CONSOLE_URL, DOCS_URL). */
export function addressesOf(config: { apiBaseUrl: string; journeyUrl: string; consoleUrl: string; docsUrl: string }): SiteAddresses {
  return { api: config.apiBaseUrl, journey: config.journeyUrl, console: config.consoleUrl, docs: config.docsUrl };
}

const KEYS = ['api', 'journey', 'console', 'docs'] as const;
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * `text` with each address of `from` replaced by the same one of `to`, in one pass (an address
 * of `to` equal to another of `from` is not replaced twice), and only as a whole address
 * (`localhost:80801` is not `localhost:8080`). `escape` writes a new address for the text's
 * language (HTML, JSON); the addresses themselves are validated URLs.
 */
export function withAddresses(text: string, to: SiteAddresses, from: SiteAddresses = WRITTEN_ADDRESSES, escape: (s: string) => string = (s) => s): string {
  const byAddress = new Map(KEYS.map((k) => [from[k], escape(to[k])]));
  const pattern = new RegExp(`(?:${KEYS.map((k) => escapeRegExp(from[k])).join('|')})(?![0-9])`, 'g');
  return text.replace(pattern, (address) => byAddress.get(address) ?? address);
}

/** The escape of an address written into a file of this type (its extension), for withAddresses. */
export function addressEscapeFor(path: string): (s: string) => string {
  if (path.endsWith('.html')) return escapeHtml;
  if (path.endsWith('.json')) return (s) => JSON.stringify(s).slice(1, -1);
  return (s) => s;
}

/**
 * Where the addresses of a page come from, said on the page under its title. `built`: those
 * `npm run docs:build` was given (a publication); `served`: those of the service serving it,
 * which rewrites the built page at its start with this note.
 */
export function addressesNote(a: SiteAddresses, source: 'built' | 'served'): string {
  const code = (s: string) => `<code>${escapeHtml(s)}</code>`;
  const list = `the API at ${code(a.api)}, the hosted journey at ${code(a.journey)} and this documentation at ${code(a.docs)}`;
  const names = `${code('API_BASE_URL')}, ${code('JOURNEY_URL')} and ${code('DOCS_URL')}`;
  const where =
    source === 'served'
      ? `are those of the service serving this page: its ${names} (<a href="/guides/configuration">configuration</a>).`
      : `are those this site was built with: ${names} as set when ${code('npm run docs:build')} ran (a default start's when unset). A service you start serves these pages with its own addresses.`;
  return `<p class="addresses-note" id="addresses">The addresses on this page, ${list}, ${where}</p>`;
}

/** The note of a page, found to be replaced (addressesNote writes one paragraph of this class). */
export const ADDRESSES_NOTE = /<p class="addresses-note" id="addresses">[\s\S]*?<\/p>/;
