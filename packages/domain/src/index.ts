export * from './ids.ts';
export * from './countries.ts';
export * from './case-state.ts';
export * from './flow.ts';
export * from './standard-flow.ts';
export * from './error-catalogue.ts';
export * from './calendar.ts';
export * from './webhook-events.ts';
