export * from './sign-request.ts';
export * from './client.ts';
export * from './webhooks.ts';
export * from './webhook-request.ts';
export * from './signing-clock.ts';
