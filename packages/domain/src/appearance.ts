/**
 * The journey's appearance per client and environment: a display name, a logo and two colours.
 * The journey applies them as CSS custom properties, so the client's colours must keep every text
 * of the journey readable: each rule below is WCAG 2.2 AA (1.4.3, text contrast 4.5:1), checked
 * against the journey's own text colours (apps/journey/src/app/styles.css), which do not change.
 */

/** The journey's text colours drawn on the background (ink, muted, danger, ok in styles.css). */
export const JOURNEY_TEXT_COLORS = { ink: '#1b1f24', muted: '#4a5360', danger: '#b3261e', ok: '#146c2e' } as const;
/** The label of a primary button is drawn in whichever of these reads better on the primary colour. */
const BUTTON_LABEL_COLORS = ['#ffffff', JOURNEY_TEXT_COLORS.ink] as const;

export const DEFAULT_APPEARANCE = { primaryColor: '#0b57d0', backgroundColor: '#ffffff' } as const;
export const AA_TEXT_CONTRAST = 4.5;
export const MAX_DISPLAY_NAME = 60;

/** Logos: small raster images (SVG is refused: a vector file can carry script and external references). */
export const LOGO_LIMITS = {
  maxBytes: 256 * 1024,
  types: ['image/png', 'image/jpeg', 'image/webp'] as const,
  minSide: 16,
  maxSide: 1024,
};

const HEX = /^#[0-9a-f]{6}$/;

/** sRGB relative luminance (WCAG 2.x definition). */
function relativeLuminance(hex: string): number {
  const channel = (i: number) => {
    const c = parseInt(hex.slice(1 + 2 * i, 3 + 2 * i), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(0) + 0.7152 * channel(1) + 0.0722 * channel(2);
}

/** The WCAG contrast ratio of two colours, from 1 to 21. */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** The label colour of a button drawn in `primary`: the better of white and the journey's ink. */
export function buttonLabelColor(primary: string): string {
  return BUTTON_LABEL_COLORS.reduce((best, c) => (contrastRatio(primary, c) > contrastRatio(primary, best) ? c : best));
}

export interface AppearanceInput {
  display_name: string | null;
  primary_color: string;
  background_color: string;
}

interface Appearance {
  displayName: string | null;
  primaryColor: string;
  backgroundColor: string;
}

export type AppearanceCheck = { ok: true; value: Appearance } | { ok: false; field: string; message: string };

const ratio = (r: number) => `${(Math.floor(r * 100) / 100).toFixed(2)}:1`;

/** Validates and normalises what a client asks for (colours in lower-case #rrggbb, the name trimmed). */
export function checkAppearance(input: AppearanceInput): AppearanceCheck {
  const name = input.display_name === null ? null : input.display_name.normalize('NFC').trim();
  if (name !== null) {
    if (name.length === 0) return { ok: false, field: 'display_name', message: 'display_name is empty: send null to show none.' };
    if (name.length > MAX_DISPLAY_NAME) return { ok: false, field: 'display_name', message: `display_name has at most ${MAX_DISPLAY_NAME} characters.` };
    // Control and bidirectional-override characters could make the name read as something else.
    if (/[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/u.test(name)) {
      return { ok: false, field: 'display_name', message: 'display_name may not carry control or direction-override characters.' };
    }
  }
  const primary = input.primary_color.toLowerCase();
  const background = input.background_color.toLowerCase();
  if (!HEX.test(primary)) return { ok: false, field: 'primary_color', message: 'primary_color must be a colour written #rrggbb.' };
  if (!HEX.test(background)) return { ok: false, field: 'background_color', message: 'background_color must be a colour written #rrggbb.' };

  for (const [role, text] of Object.entries(JOURNEY_TEXT_COLORS)) {
    const r = contrastRatio(background, text);
    if (r < AA_TEXT_CONTRAST) {
      return { ok: false, field: 'background_color', message: `The journey's ${role} text (${text}) on ${background} has a contrast of ${ratio(r)}; WCAG AA needs ${AA_TEXT_CONTRAST}:1. Choose a lighter background.` };
    }
  }
  const onBackground = contrastRatio(primary, background);
  if (onBackground < AA_TEXT_CONTRAST) {
    return { ok: false, field: 'primary_color', message: `Links in ${primary} on the background ${background} have a contrast of ${ratio(onBackground)}; WCAG AA needs ${AA_TEXT_CONTRAST}:1.` };
  }
  // Primary buttons need no rule of their own: a primary colour at 4.5:1 against a background no
  // darker than white is at least 4.5:1 against white, the label buttonLabelColor then picks (the
  // property test in tests/domain/appearance.test.ts checks it over random colours).
  return { ok: true, value: { displayName: name, primaryColor: primary, backgroundColor: background } };
}

/** The logo's pixel size, checked from its header before it is decoded. */
export function logoDimensionProblem(width: number, height: number): string | null {
  if (Math.max(width, height) > LOGO_LIMITS.maxSide) return `The logo is ${width}×${height} pixels; at most ${LOGO_LIMITS.maxSide} pixels a side.`;
  if (Math.min(width, height) < LOGO_LIMITS.minSide) return `The logo is ${width}×${height} pixels; at least ${LOGO_LIMITS.minSide} pixels a side.`;
  return null;
}
