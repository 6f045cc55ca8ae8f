import type { VerifyInput, VerifyResult } from './types.ts';

export async function verifyPresentation(input: VerifyInput): Promise<VerifyResult> {
  void input;
  throw new Error('not implemented yet');
}
