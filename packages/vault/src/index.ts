export * from './master-keyring.ts';
export * from './secrets.ts';
