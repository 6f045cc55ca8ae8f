/** The frame every page of the site shares: header with the search box, navigation, footer. */

export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

interface NavItem {
  title: string;
  url: string;
}
export interface NavGroup {
  title: string;
  items: NavItem[];
}

interface Assets {
  css: string;
  search: string;
}

export interface PageOptions {
  title: string;
  /** Site address of the page (its navigation entry is marked current). */
  url: string;
  body: string;
  nav: NavGroup[];
  assets: Assets;
  /** A short description for the search index and the page's meta description. */
  description?: string;
  /** Extra scripts of this page (their addresses on the site). */
  scripts?: string[];
  /** The page lays its main column out wide (the API reference). */
  wide?: boolean;
}

function navList(nav: NavGroup[], current: string): string {
  return nav
    .map(
      (g) =>
        `<h2 class="nav-group">${escapeHtml(g.title)}</h2><ul>${g.items
          .map((i) => `<li><a href="${escapeHtml(i.url)}"${i.url === current ? ' aria-current="page"' : ''}>${escapeHtml(i.title)}</a></li>`)
          .join('')}</ul>`,
    )
    .join('');
}

export function layout(p: PageOptions): string {
  const nav = navList(p.nav, p.url);
  const scripts = [p.assets.search, ...(p.scripts ?? [])].map((s) => `<script src="${escapeHtml(s)}" defer></script>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(p.title)} · Identity verification docs</title>
${p.description ? `<meta name="description" content="${escapeHtml(p.description)}">` : ''}
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${escapeHtml(p.assets.css)}">${scripts}
</head><body${p.wide ? ' class="wide"' : ''}>
<a class="skip" href="#main">Skip to content</a>
<header class="site-header"><a class="brand" href="/">IDV docs</a>
<form class="search-form" role="search" action="/search" method="get"><label for="site-search" class="visually-hidden">Search the documentation</label><input id="site-search" name="q" type="search" placeholder="Search" autocomplete="off"><button type="submit">Search</button></form>
</header>
<details class="nav-phone"><summary>Menu</summary><nav aria-label="Documentation (menu)">${nav}</nav></details>
<div class="page"><nav class="nav-side" aria-label="Documentation">${nav}</nav>
<main id="main" tabindex="-1">${p.body}</main></div>
<footer class="site-footer"><p>Built from the repository by <code>npm run docs:build</code>. <a href="/changelog">Changelog</a> · <a href="/errors">Errors</a></p></footer>
</body></html>
`;
}
