/**
 * MRZ dates are `YYMMDD`: the century is inferred. A birth date lies in the past (a two-digit year
 * after this year's is last century); an expiry date may lie up to 20 years ahead (passports run
 * 10 years, some cards 15), so a year beyond that is last century too.
 */
const EXPIRY_HORIZON_YEARS = 20;

export type MrzDateKind = 'birth' | 'expiry';

/** `YYYY-MM-DD`, or undefined when the six characters are not a calendar date (unknown parts `<`). */
export function mrzDateToIso(yymmdd: string, kind: MrzDateKind, now: Date = new Date()): string | undefined {
  if (!/^\d{6}$/.test(yymmdd)) return undefined;
  const yy = Number(yymmdd.slice(0, 2));
  const month = Number(yymmdd.slice(2, 4));
  const day = Number(yymmdd.slice(4, 6));
  const thisYear = now.getUTCFullYear();
  let year = 2000 + yy;
  if (kind === 'birth') {
    const candidate = Date.UTC(year, month - 1, day);
    if (candidate > now.getTime()) year -= 100;
  } else if (year > thisYear + EXPIRY_HORIZON_YEARS) {
    year -= 100;
  }
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** `YYYY-MM-DD` → `YYMMDD`. */
export function isoToMrzDate(iso: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
  if (!m) throw new Error('date must be YYYY-MM-DD');
  return m[1]!.slice(2) + m[2] + m[3];
}
