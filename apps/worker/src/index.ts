export * from './dispatcher.ts';
export * from './send.ts';
export * from './retention.ts';
