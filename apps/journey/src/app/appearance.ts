import { h } from './dom.ts';
import { t } from './i18n.ts';
import type { JourneyState } from './types.ts';

/**
 * The client's look: its colours become the journey's CSS custom properties (set through the
 * CSSOM, which the CSP's `style-src 'self'` allows, where an inline style attribute would be
 * refused), and its logo and name a line above every screen. The service checked the colours for
 * WCAG AA contrast against the journey's own text colours before storing them.
 */
/** Called once the messages are loaded (the logo's text alternative is in the person's language). */
export function applyAppearance(a: JourneyState['appearance']): void {
  const root = document.documentElement.style;
  root.setProperty('--accent', a.primary_color);
  root.setProperty('--accent-ink', a.button_label_color);
  root.setProperty('--bg', a.background_color);
  if (!a.logo_path && !a.display_name) return;
  // Beside a written name the logo says nothing more to a screen reader; alone, it carries the name.
  const logo = a.logo_path ? h('img', { src: a.logo_path, alt: a.display_name ? '' : t('brand_logo'), class: 'brand-logo', decoding: 'async' }) : null;
  const name = a.display_name ? h('span', { class: 'brand-name' }, a.display_name) : null;
  document.querySelector('.brand')?.remove();
  document.body.prepend(h('header', { class: 'brand' }, logo, name));
}
