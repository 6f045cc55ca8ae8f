import type { AppearanceRow } from '@idv/db';
import { DEFAULT_APPEARANCE, buttonLabelColor } from '@idv/domain';

/** The appearance as the API shows it: the journey's own look until a client sets one. */
export function presentAppearance(row: AppearanceRow | null) {
  const primary = row?.primaryColor ?? DEFAULT_APPEARANCE.primaryColor;
  return {
    object: 'journey_appearance' as const,
    display_name: row?.displayName ?? null,
    primary_color: primary,
    background_color: row?.backgroundColor ?? DEFAULT_APPEARANCE.backgroundColor,
    button_label_color: buttonLabelColor(primary),
    logo: row?.logo ? { content_type: row.logo.type, bytes: row.logo.bytes, sha256: row.logo.sha256 } : null,
    updated_at: row?.updatedAt.toISOString() ?? null,
  };
}
