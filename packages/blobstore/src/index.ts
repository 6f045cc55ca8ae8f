export * from './blob-store.ts';
export * from './file-blob-store.ts';
export * from './postgres-blob-store.ts';
export * from './choose.ts';
