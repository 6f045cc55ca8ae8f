/** The service's request and response types, generated once for the SDK (`npm run api:types`). */
export type { paths, components, operations } from '../../../../../packages/sdk/src/openapi-types.ts';
