import { checkDigitMatches } from './check-digit.ts';
import { checksFor, type CheckName, type CheckSpec, type MrzLayout } from './formats.ts';

/** The characters a check digit covers. */
function checkedText(check: CheckSpec, text: string): string {
  return check.over.map((span) => text.slice(span.start, span.start + span.length)).join('');
}

export function checkPasses(check: CheckSpec, text: string): boolean {
  return checkDigitMatches(checkedText(check, text), text[check.digit]!);
}

/** Names of the checks (and composite) these joined lines fail, in layout order. */
export function failedChecks(layout: MrzLayout, text: string): CheckName[] {
  return checksFor(layout, text)
    .filter((c) => !checkPasses(c, text))
    .map((c) => c.name);
}
