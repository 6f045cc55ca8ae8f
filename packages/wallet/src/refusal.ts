import type { WalletRefusal } from './types.ts';

/** A refusal on its way out of a verification step: the contract's reason and a technical detail (never a claim's value). */
export class Refusal extends Error {
  constructor(
    readonly reason: WalletRefusal,
    readonly detail: string,
  ) {
    super(detail);
  }
}
export const refuse = (reason: WalletRefusal, detail: string): never => {
  throw new Refusal(reason, detail);
};
