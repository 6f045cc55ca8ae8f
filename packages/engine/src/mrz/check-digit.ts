/**
 * ICAO 9303 check digits: each character has a value (digits their own, A–Z 10–35, `<` 0),
 * weighted 7, 3, 1 repeating, summed modulo 10. Letters that share a value modulo 10 (G/Q, A/K/U,
 * B/L/V, E/O/Y…) give the same digit, so a check digit can never prove such a letter right.
 */
export function mrzCharValue(c: string): number {
  const code = c.charCodeAt(0);
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 65 && code <= 90) return code - 55;
  if (c === '<') return 0;
  return -1;
}

const WEIGHTS = [7, 3, 1] as const;

/** The check digit of `field`, or null when the field holds a character outside the MRZ alphabet. */
export function checkDigit(field: string): number | null {
  let sum = 0;
  for (let i = 0; i < field.length; i++) {
    const v = mrzCharValue(field[i]!);
    if (v < 0) return null;
    sum += v * WEIGHTS[i % 3]!;
  }
  return sum % 10;
}

/** True when `digit` (one character) is the check digit of `field`; `<` counts as 0 where ICAO allows it. */
export function checkDigitMatches(field: string, digit: string): boolean {
  const expected = checkDigit(field);
  if (expected === null) return false;
  return digit === String(expected) || (digit === '<' && expected === 0);
}
