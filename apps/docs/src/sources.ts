import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One Markdown file of the repository published as a page of the site. */
export interface MarkdownSource {
  /** Path from the repository root, e.g. docs/webhooks.md. */
  repoPath: string;
  /** Address on the site, e.g. /guides/webhooks. */
  url: string;
  /** The navigation group it is listed in. */
  group: 'start' | 'guides';
}

/** Pages of the "Start" group, in this order; every other docs/*.md is a guide. */
const START: Record<string, string> = { 'docs/quickstart.md': '/quickstart', 'docs/CHANGELOG.md': '/changelog' };

/**
 * Every Markdown page of the site: the quick start and the changelog, each guide of docs/, and
 * the benchmarks' README (which the guides cite for their figures).
 */
export function markdownSources(root: string): MarkdownSource[] {
  const guides = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md') && !START[`docs/${name}`])
    .sort()
    .map((name): MarkdownSource => ({ repoPath: `docs/${name}`, url: `/guides/${name.slice(0, -3).toLowerCase()}`, group: 'guides' }));
  return [
    ...Object.entries(START).map(([repoPath, url]): MarkdownSource => ({ repoPath, url, group: 'start' })),
    ...guides,
    { repoPath: 'bench/README.md', url: '/guides/benchmarks', group: 'guides' },
  ];
}

/** The first level-one heading of a Markdown text (its page title). */
export function markdownTitle(text: string, fallback: string): string {
  return /^# (.+)$/m.exec(text)?.[1].replace(/`/g, '').trim() ?? fallback;
}

export function readSource(root: string, source: MarkdownSource): string {
  return readFileSync(join(root, source.repoPath), 'utf8');
}
