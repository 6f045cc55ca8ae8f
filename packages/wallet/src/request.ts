import type { BuiltRequest, RequestInput } from './types.ts';

export async function buildRequest(input: RequestInput): Promise<BuiltRequest> {
  void input;
  throw new Error('not implemented yet');
}
