import { Type } from '@sinclair/typebox';
import { LOGO_LIMITS, MAX_DISPLAY_NAME } from '@idv/domain';
import { Timestamp } from '../../schemas/common.ts';

const Color = Type.String({ pattern: '^#[0-9A-Fa-f]{6}$', description: 'sRGB colour written #rrggbb' });

export const JourneyAppearanceSchema = Type.Object(
  {
    object: Type.Literal('journey_appearance'),
    display_name: Type.Union([Type.String({ maxLength: MAX_DISPLAY_NAME }), Type.Null()], { description: 'Shown beside the logo at the top of every journey screen; null: none' }),
    primary_color: Color,
    background_color: Color,
    button_label_color: Type.String({ description: 'Derived: the label colour of primary buttons (white or the journey ink, whichever contrasts more)' }),
    logo: Type.Union([
      Type.Object({
        content_type: Type.String(),
        bytes: Type.Integer(),
        sha256: Type.String(),
      }),
      Type.Null(),
    ]),
    updated_at: Type.Union([Timestamp, Type.Null()], { description: 'null: never set, the journey’s own look' }),
  },
  { $id: 'JourneyAppearance' },
);

export const JourneyAppearanceUpdateSchema = Type.Object(
  {
    display_name: Type.Union([Type.String({ maxLength: MAX_DISPLAY_NAME * 4 }), Type.Null()]),
    primary_color: Type.String({ maxLength: 16 }),
    background_color: Type.String({ maxLength: 16 }),
    logo: Type.Optional(
      Type.Union(
        [
          Type.Object(
            {
              // No maxLength: the route's body limit bounds it, and a logo over its size is answered
              // image_too_large with the limit in bytes, which says more than a character count.
              data_base64: Type.String({ description: 'The image bytes in base64' }),
            },
            { additionalProperties: false },
          ),
          Type.Null(),
        ],
        { description: `Omitted: keep the current logo; null: remove it. PNG, JPEG or WebP, at most ${LOGO_LIMITS.maxBytes / 1024} KiB and ${LOGO_LIMITS.minSide}–${LOGO_LIMITS.maxSide} pixels a side (the type is read from the bytes).` },
      ),
    ),
  },
  { additionalProperties: false, $id: 'JourneyAppearanceUpdate' },
);
