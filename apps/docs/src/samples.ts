/**
 * The convention that keeps the site's code samples true (docs/docs-site.md, "Executed samples"):
 * every shell or TypeScript/JavaScript block says `exec` (run by tests/docs/samples.test.ts) or
 * `no-exec`, or the build fails. Executed TypeScript takes `file=<name>.ts` and `background`; the
 * comments `<!-- exec: journey -->` and `<!-- exec: wait-output <text> -->` mark the reader's steps.
 */
const SHELL_LANGS = ['sh', 'bash', 'shell'];
const SCRIPT_LANGS = ['ts', 'typescript', 'js', 'javascript'];

export interface FenceInfo {
  lang: string;
  exec: boolean;
  noExec: boolean;
  file: string | null;
  background: boolean;
}

export function parseFenceInfo(info: string): FenceInfo {
  const [lang = '', ...words] = info.trim().split(/\s+/);
  const file = words.find((w) => w.startsWith('file='))?.slice(5) ?? null;
  return { lang: lang.toLowerCase(), exec: words.includes('exec'), noExec: words.includes('no-exec'), file, background: words.includes('background') };
}

/** Whether a block of this language must say `exec` or `no-exec`. */
export function isSampleLang(lang: string): boolean {
  return SHELL_LANGS.includes(lang) || SCRIPT_LANGS.includes(lang);
}

export type SampleStep =
  | { kind: 'shell'; code: string; line: number }
  | { kind: 'script'; code: string; line: number; file: string | null; background: boolean }
  | { kind: 'directive'; name: string; arg: string; line: number };

const FENCE = /^(`{3,}|~{3,})(.*)$/;
const DIRECTIVE = /^<!-- exec: ([a-z-]+)(?: (.+?))? -->$/;

/**
 * The executed steps of a Markdown text, in reading order, and the sample blocks that carry
 * neither flag (an error for the build and the test).
 */
export function extractSamples(markdown: string): { steps: SampleStep[]; unmarked: number[] } {
  const steps: SampleStep[] = [];
  const unmarked: number[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const directive = DIRECTIVE.exec(lines[i].trim());
    if (directive) {
      steps.push({ kind: 'directive', name: directive[1], arg: directive[2] ?? '', line: i + 1 });
      continue;
    }
    const open = FENCE.exec(lines[i]);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !lines[i].startsWith(open[1]); i++) body.push(lines[i]);
    const info = parseFenceInfo(open[2]);
    if (!isSampleLang(info.lang)) continue;
    if (!info.exec && !info.noExec) unmarked.push(start + 1);
    if (!info.exec) continue;
    const code = `${body.join('\n')}\n`;
    if (SHELL_LANGS.includes(info.lang)) steps.push({ kind: 'shell', code, line: start + 1 });
    else steps.push({ kind: 'script', code, line: start + 1, file: info.file, background: info.background });
  }
  return { steps, unmarked };
}

/** Removes the test directives from a Markdown text before it is rendered. */
export function withoutDirectives(markdown: string): string {
  return markdown
    .split('\n')
    .filter((l) => !DIRECTIVE.test(l.trim()))
    .join('\n');
}
