import MiniSearch from 'minisearch';
import { SEARCH_OPTIONS, type SearchDocument } from '../search-options.ts';

/**
 * The search page's script: loads the index built with the site (declared by the build as
 * SEARCH_INDEX_URL) and lists the sections that hold every word typed, best first. Runs on the
 * search page only; elsewhere the header's form leads there.
 */
declare const SEARCH_INDEX_URL: string;

const input = document.getElementById('search-q') as HTMLInputElement | null;
const results = document.getElementById('search-results');
const status = document.getElementById('search-status');

if (input && results && status) {
  let index: MiniSearch<SearchDocument> | null = null;
  const load = async () => (index ??= MiniSearch.loadJSON<SearchDocument>(await (await fetch(SEARCH_INDEX_URL)).text(), SEARCH_OPTIONS));

  const show = async (query: string) => {
    const q = query.trim();
    results.replaceChildren();
    if (!q) {
      status.textContent = '';
      return;
    }
    const hits = (await load()).search(q).slice(0, 30);
    status.textContent = hits.length ? `${hits.length}${hits.length === 30 ? '+' : ''} results for “${q}”` : `No result for “${q}”`;
    for (const hit of hits) {
      const li = document.createElement('li');
      const a = document.createElement('a');
      a.href = hit.id;
      a.textContent = hit.title as string;
      const p = document.createElement('p');
      p.textContent = hit.excerpt as string;
      li.append(a, p);
      results.append(li);
    }
  };

  const initial = new URLSearchParams(location.search).get('q') ?? '';
  input.value = initial;
  void show(initial);
  let timer: ReturnType<typeof setTimeout> | undefined;
  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      history.replaceState(null, '', input.value ? `?q=${encodeURIComponent(input.value)}` : location.pathname);
      void show(input.value);
    }, 150);
  });
}
