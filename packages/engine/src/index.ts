export * from './types.ts';
export * from './mrz/check-digit.ts';
