import type { PadRow, PadSet } from './pad-set.ts';

/**
 * News photos of lfw-dev that are themselves a presentation medium: a frame grabbed from
 * television, a printed or photocopied photo reproduced. Counted as bona fide, they made the
 * still's model look wrong when it was right, and they taught the fit that a print's or a
 * screen's look is a live face's.
 *
 * How they were found (2026-11-30): every bona fide photo of the set (931, both halves, the face
 * fixtures and lfw-dev's 450 people with two photos) looked at by eye in sheets of 24, in the
 * order of their names, not of any score; the 27 that might be a re-capture looked at again at
 * twice their size; marked only where the medium shows (scan lines and colour bleeding of a
 * video frame, a channel's logo or caption, a print's faded colours and surface, a photocopy's
 * grey and grain). Blurred, dark or grainy photos with no sign of a medium stay bona fide,
 * whatever their score (Coulthard_0001, Caraway_0002 and Trevi_0001 among those the model
 * flags; bin Laden's second, a frame of a video, shows no sign of it on the photo).
 */
export const RECAPTURED_PHOTOS: Readonly<Record<string, string>> = {
  'lfw:Abid_Hamid_Mahmud_Al-Tikriti/Abid_Hamid_Mahmud_Al-Tikriti_0001.jpg': 'an old printed photo reproduced: faded colours, the print surface',
  'lfw:Alejandro_Avila/Alejandro_Avila_0001.jpg': 'a photocopied or printed mugshot: grey, the copy grain',
  'lfw:Alejandro_Avila/Alejandro_Avila_0002.jpg': 'a frame grabbed from television: scan lines, colour bleeding',
  'lfw:Bob_Hope/Bob_Hope_0002.jpg': 'an archival black-and-white print reproduced',
  'lfw:Gloria_Macapagal_Arroyo/Gloria_Macapagal_Arroyo_0017.jpg': 'a frame grabbed from television: interlacing, colour bleeding',
  'lfw:Peter_Arnett/Peter_Arnett_0002.jpg': "a frame grabbed from television: the channel's logo",
  'lfw:Raghad_Saddam_Hussein/Raghad_Saddam_Hussein_0001.jpg': "a frame grabbed from television: the channel's logo and caption",
  'lfw:Raghad_Saddam_Hussein/Raghad_Saddam_Hussein_0002.jpg': "a frame grabbed from television: the channel's logo and caption",
  'lfw:Tamara_Brooks/Tamara_Brooks_0002.jpg': "a frame grabbed from television: the programme's caption",
};

/** The photo a bona fide row was read from: the photo itself, or the photo its generated control filmed. */
function sourcePhoto(row: PadRow): string | undefined {
  if (row.species === 'bona_fide_photos') return row.id;
  if (row.species === 'generated_bona_fide') return row.id.replace(/^control:/, '').replace(/:\d+$/, '');
  return undefined;
}

/**
 * The set with the re-captured photos, and the generated controls filmed from them, moved to
 * their own species, `news_recapture`: attacks, real, reported only (half 2: never chosen on),
 * so neither the fit nor a bona fide rate counts them. Pure; applied to a set read from the
 * images and to one read back from a file alike.
 */
export function relabelRecaptured(set: PadSet): PadSet {
  const rows = set.rows.map((row): PadRow => {
    const source = sourcePhoto(row);
    return source !== undefined && source in RECAPTURED_PHOTOS ? { ...row, species: 'news_recapture', attack: true, half: 2 } : row;
  });
  return { ...set, rows };
}
