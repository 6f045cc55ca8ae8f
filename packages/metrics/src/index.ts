export * from './registry.ts';
export * from './server.ts';
export * from './http.ts';
export * from './checks.ts';
export * from './webhooks.ts';
export * from './database.ts';
export * from './loops.ts';
