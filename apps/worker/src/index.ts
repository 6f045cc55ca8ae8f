export * from './dispatcher.ts';
export * from './send.ts';
export * from './retention.ts';
export * from './checks-runner.ts';
export * from './duplicates.ts';
export * from './worker.ts';
