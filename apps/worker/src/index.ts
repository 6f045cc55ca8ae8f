export * from './dispatcher.ts';
export * from './send.ts';
