import { existsSync } from 'node:fs';
import { join, posix } from 'node:path';
import MarkdownIt from 'markdown-it';
import anchor from 'markdown-it-anchor';
import { escapeHtml } from './layout.ts';
import { isSampleLang, parseFenceInfo, withoutDirectives } from './samples.ts';

/**
 * GitHub's heading ids (lower case, punctuation dropped, spaces to hyphens), so the links the
 * guides already make to each other's headings (`usage.md#contract-and-quotas`) resolve on the
 * site as they do in the repository.
 */
export function slugify(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** A part of a page under one heading, for the search index. */
interface Section {
  anchor: string | null;
  heading: string;
  text: string;
}

export interface RenderedMarkdown {
  html: string;
  /** Level-two headings, for the page's table of contents. */
  toc: { id: string; text: string }[];
  sections: Section[];
}

export interface RenderContext {
  root: string;
  /** Repository path of the page being rendered (links are relative to it). */
  repoPath: string;
  /** Repository path → site address of every Markdown page of the site. */
  pages: Map<string, string>;
  /** Files of docs/ linked from a page that are published beside it (e.g. the Grafana dashboard): repository path → site address. */
  copied: Map<string, string>;
  /** Links to repository files that are not on the site (shown as text, reported by the build). */
  dropped: string[];
  /** Sample blocks without exec or no-exec: `npm run docs:build` and tests/docs/samples.test.ts fail on them. */
  unmarked: string[];
}

type Token = ReturnType<InstanceType<typeof MarkdownIt>['parse']>[number];

const md = new MarkdownIt({ html: false, linkify: false, typographer: false });
md.use(anchor, { slugify, level: [1, 2, 3, 4], permalink: anchor.permalink.headerLink({ safariReaderFix: true }) });

/** A site address for a link of a Markdown page, or null when the target is not on the site. */
function rewriteHref(href: string, ctx: RenderContext): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('#') || href.startsWith('/')) return href;
  const [path, fragment] = href.split('#') as [string, string | undefined];
  const target = posix.normalize(posix.join(posix.dirname(ctx.repoPath), path));
  const hash = fragment ? `#${fragment}` : '';
  const page = ctx.pages.get(target);
  if (page) return page + hash;
  if (target.endsWith('.md') && target.startsWith('docs/')) throw new Error(`${ctx.repoPath}: the link ${href} names a guide that does not exist`);
  if (target.startsWith('docs/') && !target.endsWith('.md') && existsSync(join(ctx.root, target))) {
    const url = `/guides/${target.slice('docs/'.length)}`;
    ctx.copied.set(target, url);
    return url + hash;
  }
  ctx.dropped.push(`${ctx.repoPath} → ${href}`);
  return null;
}

md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  const token = tokens[idx];
  const href = String(token.attrGet('href') ?? '');
  const rewritten = rewriteHref(href, env as unknown as RenderContext);
  if (rewritten === null) {
    token.meta = { dropped: true };
    return '';
  }
  token.attrSet('href', rewritten);
  return self.renderToken(tokens, idx, options);
};
// An image of docs/ (a figure) is copied beside its page, as a linked file is.
const renderImage = md.renderer.rules.image!;
md.renderer.rules.image = (tokens, idx, options, env, self) => {
  const token = tokens[idx];
  const src = rewriteHref(String(token.attrGet('src') ?? ''), env as unknown as RenderContext);
  if (src === null) return '';
  token.attrSet('src', src);
  return renderImage(tokens, idx, options, env, self);
};
md.renderer.rules.link_close = (tokens, idx, options, _env, self) => {
  // The matching opening token of a dropped link rendered nothing: neither does its end.
  let depth = 0;
  for (let i = idx - 1; i >= 0; i--) {
    if (tokens[i].type === 'link_close') depth++;
    if (tokens[i].type === 'link_open') {
      if (depth === 0) return tokens[i].meta?.dropped ? '' : self.renderToken(tokens, idx, options);
      depth--;
    }
  }
  return self.renderToken(tokens, idx, options);
};

// Code blocks: focusable when they scroll (keyboard users can scroll them), marked when executed.
md.renderer.rules.fence = (tokens, idx) => {
  const token = tokens[idx];
  const info = parseFenceInfo(token.info);
  const lang = info.lang ? ` class="language-${escapeHtml(info.lang)}"` : '';
  const label = info.lang ? `<span class="code-lang">${escapeHtml(info.lang)}${info.exec ? ' · run in CI' : ''}</span>` : '';
  return `<div class="code">${label}<pre tabindex="0"><code${lang}>${escapeHtml(token.content)}</code></pre></div>\n`;
};
// Wide tables scroll inside their own box on a phone instead of widening the page.
md.renderer.rules.table_open = () => '<div class="table-wrap" tabindex="0" role="region" aria-label="Table"><table>\n';
md.renderer.rules.table_close = () => '</table></div>\n';

function inlineText(token: Token): string {
  return (token.children ?? [])
    .map((c: Token) => (c.type === 'text' || c.type === 'code_inline' ? c.content : c.type === 'softbreak' || c.type === 'hardbreak' ? ' ' : ''))
    .join('');
}

/** Renders a Markdown page of the repository for the site. */
export function renderMarkdown(text: string, ctx: RenderContext): RenderedMarkdown {
  const tokens = md.parse(withoutDirectives(text), ctx as unknown as Record<string, unknown>);
  const toc: RenderedMarkdown['toc'] = [];
  const sections: Section[] = [{ anchor: null, heading: '', text: '' }];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.type === 'fence' && isSampleLang(parseFenceInfo(t.info).lang) && !parseFenceInfo(t.info).exec && !parseFenceInfo(t.info).noExec) {
      ctx.unmarked.push(`${ctx.repoPath}:${(t.map?.[0] ?? 0) + 1}: a ${t.info.trim()} block must say exec or no-exec (docs/docs-site.md)`);
    }
    if (t.type === 'heading_open') {
      const heading = inlineText(tokens[i + 1]);
      const id = String(t.attrGet('id') ?? slugify(heading));
      if (t.tag === 'h2') toc.push({ id, text: heading });
      if (t.tag !== 'h1') sections.push({ anchor: id, heading, text: '' });
      else sections[0].heading = heading;
      i++;
      continue;
    }
    const section = sections[sections.length - 1];
    if (t.type === 'inline') section.text += `${inlineText(t)} `;
    else if (t.type === 'fence' || t.type === 'code_block') section.text += `${t.content} `;
  }
  return { html: md.renderer.render(tokens, md.options, ctx as unknown as Record<string, unknown>), toc, sections: sections.filter((s) => s.text.trim() || s.anchor) };
}
