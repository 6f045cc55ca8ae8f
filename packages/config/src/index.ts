export * from './config.ts';
export * from './master-key-file.ts';
