export * from './aead.ts';
export * from './master-keyring.ts';
export * from './secrets.ts';
export * from './key-wrapper.ts';
export * from './case-keys.ts';
export * from './face-rotation.ts';
