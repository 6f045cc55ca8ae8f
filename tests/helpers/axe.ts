import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { saveScreenshot } from './browser.ts';
import { ROOT } from './processes.ts';

const AXE = readFileSync(join(ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

/**
 * The axe-core audit of the page as it is (WCAG 2 A and AA rules): the serious and critical
 * violations. axe is evaluated through the DevTools protocol, so the page's CSP stays in force.
 */
export async function axeViolations(page: Page, exclude: string[] = []): Promise<string[]> {
  // Injected once per document: a screen drawn by script in the same page reuses it.
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(`${AXE}\n;0`);
  const violations = (await page.evaluate(async (exclude) => {
    const axe = (globalThis as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[] }> } }).axe;
    const context = exclude.length ? { include: [['html']], exclude: exclude.map((s) => [s]) } : document;
    const result = await axe.run(context, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] }, resultTypes: ['violations'] });
    return result.violations;
  }, exclude)) as { id: string; impact: string; help: string; nodes: { target: string[] }[] }[];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => {
      // The first few elements name the problem; a rule broken by hundreds (a generated page) would bury the report.
      const nodes = v.nodes.slice(0, 3).map((n) => n.target.join(' '));
      return `${v.impact} ${v.id}: ${v.help} (${nodes.join(', ')}${v.nodes.length > 3 ? ` and ${v.nodes.length - 3} more` : ''})`;
    });
}

/**
 * Screenshots into `dir`/<name>-<viewport>.png, each with the axe audit of the page as it was
 * (less the parts `exclude` names by selector), kept for the file's closing check that no screen
 * had a serious or critical violation; `alsoIn`, a folder each is copied into as well.
 */
export function screenAudits(dir: string, opts: { alsoIn?: string } = {}): {
  audits: Record<string, string[]>;
  /** `fullPage: false` shoots the viewport only (a page tens of thousands of pixels long, such as the API reference, takes longer to shoot than to audit). */
  capture(page: Page, name: string, viewport: 'phone' | 'desktop', opts?: { fullPage?: boolean; exclude?: string[] }): Promise<void>;
} {
  mkdirSync(dir, { recursive: true });
  const audits: Record<string, string[]> = {};
  return {
    audits,
    async capture(page, name, viewport, shot = {}) {
      await saveScreenshot(page, join(dir, `${name}-${viewport}.png`), { fullPage: shot.fullPage ?? true, alsoIn: opts.alsoIn });
      audits[`${name} (${viewport})`] = await axeViolations(page, shot.exclude);
    },
  };
}
