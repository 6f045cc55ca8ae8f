export * from './headers.ts';
export * from './signature.ts';
export * from './verify.ts';
export * from './retry-schedule.ts';
export * from './destination.ts';
export * from './settings.ts';
