export * from './case-vault.ts';
export * from './personal-data.ts';
export * from './identities.ts';
export * from './pieces.ts';
export * from './face-index.ts';
export * from './wallet-presentation.ts';
