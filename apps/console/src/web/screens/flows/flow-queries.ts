import { queryOptions } from '@tanstack/react-query';
import { api, ok } from '../../api/client.ts';

export const flowsQuery = () => queryOptions({ queryKey: ['flows'], queryFn: () => ok(api.GET('/v1/flows')) });

export const flowQuery = (name: string) =>
  queryOptions({ queryKey: ['flows', name], queryFn: () => ok(api.GET('/v1/flows/{name}', { params: { path: { name } } })) });
