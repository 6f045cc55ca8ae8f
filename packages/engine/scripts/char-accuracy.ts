/**
 * Characters right, as the MRZ benchmark (bench/checks/mrz.ts) counts them: each line's length
 * less its edit distance to the line read (one minus the character error rate), so a character
 * dropped or added costs one, not the rest of the line; a line not read counts none.
 */
export function charsRight(truth: string[], read: string[] | null): number {
  if (!read) return 0;
  let n = 0;
  truth.forEach((line, i) => {
    const r = read[i];
    if (r !== undefined) n += Math.max(0, line.length - editDistance(line, r));
  });
  return n;
}

/** Levenshtein distance (substitutions, insertions and deletions each cost one). */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row.push(Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    prev = row;
  }
  return prev[b.length]!;
}
