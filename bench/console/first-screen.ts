import { gzipSync } from 'node:zlib';
import type { Page, Response } from 'playwright-core';
import type { ConsoleAssets } from '../../apps/console/src/build.ts';

/** Bytes of the first screen: the document, its scripts and its stylesheets, gzip level 9 (as a server would send them). */
export interface FirstScreenBytes {
  html_gzip: number;
  js_gzip: number;
  css_gzip: number;
  /** JS + CSS, gzip: the figure the issue asks for. */
  js_css_gzip: number;
  /** The same files uncompressed. */
  js_css_raw: number;
  files: string[];
}

const gz = (b: Buffer) => gzipSync(b, { level: 9 }).length;

function sum(files: [path: string, body: Buffer][]): FirstScreenBytes {
  const out: FirstScreenBytes = { html_gzip: 0, js_gzip: 0, css_gzip: 0, js_css_gzip: 0, js_css_raw: 0, files: [] };
  for (const [path, body] of files) {
    out.files.push(path);
    if (path.endsWith('.js')) out.js_gzip += gz(body);
    else if (path.endsWith('.css')) out.css_gzip += gz(body);
    else {
      out.html_gzip += gz(body);
      continue;
    }
    out.js_css_raw += body.length;
  }
  out.js_css_gzip = out.js_gzip + out.css_gzip;
  return out;
}

/**
 * What the built app's index.html makes the browser download before it can draw anything: the
 * document, and every stylesheet, module preload and script it names (the entry and its static
 * chunks), from the real loadConsoleAssets() output.
 */
export function firstScreenOfBuild(assets: ConsoleAssets): FirstScreenBytes {
  const index = assets.get('/index.html');
  if (!index) throw new Error('loadConsoleAssets() gave no /index.html');
  const html = index.body.toString('utf8');
  // A data: URL (the empty icon) is not downloaded.
  const refs = [...html.matchAll(/<(?:link|script)\b[^>]*\b(?:href|src)="(?!data:)([^"]+)"/g)].map((m) => m[1]);
  const files: [string, Buffer][] = [['/index.html', index.body]];
  for (const ref of new Set(refs)) {
    const asset = assets.get(ref);
    if (!asset) throw new Error(`index.html names ${ref}, which the build does not hold`);
    files.push([ref, asset.body]);
  }
  return sum(files);
}

/**
 * What the browser actually fetched from the console's origin during one navigation (cold cache):
 * documents, scripts and stylesheets by their answers' bodies, and the bytes on the wire as
 * Chromium counted them (compressed, when the console server compresses them).
 */
export class BrowserFirstScreen {
  private readonly pending: Promise<[string, Buffer, number] | null>[] = [];

  constructor(
    page: Page,
    private readonly origin: string,
  ) {
    // A body still being read when the page closes rejects; left unhandled until result() it would
    // end the process: such an answer counts as not fetched (same_files_as_build then says so).
    page.on('response', (res) => this.pending.push(this.read(res).catch(() => null)));
  }

  private async read(res: Response): Promise<[string, Buffer, number] | null> {
    const url = new URL(res.url());
    if (url.origin !== this.origin || res.status() !== 200) return null;
    const type = res.headers()['content-type'] ?? '';
    if (!/^(text\/html|text\/css|text\/javascript|application\/javascript)/.test(type)) return null;
    const body = await res.body();
    const sizes = await res.request().sizes();
    const path = type.startsWith('text/html') ? `${url.pathname} (document)` : url.pathname;
    return [path, body, sizes.responseBodySize + sizes.responseHeadersSize];
  }

  async result(): Promise<FirstScreenBytes & { wire_bytes: number }> {
    const got = (await Promise.all(this.pending)).filter((x): x is [string, Buffer, number] => x !== null);
    return { ...sum(got.map(([p, b]) => [p, b])), wire_bytes: got.reduce((a, [, , w]) => a + w, 0) };
  }
}
