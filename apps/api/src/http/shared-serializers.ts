import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;
type Schemas = Record<string, unknown>;

/**
 * Fastify's serializer factory (fast-json-stringify), compiling each distinct response schema once,
 * against only the shared schemas it refers to.
 *
 * Fastify compiles a serializer for every route and status, and most are the same schema: every
 * error status of every route is `{ $ref: 'Error' }`, differing only in the description that lists
 * its codes for the OpenAPI document. And fast-json-stringify checks every shared schema it is
 * given at each compilation, though a response refers to a few. Together they made up most of the
 * time to build the app: seconds at each start of the service, and in every test file.
 * A serializer depends only on its schema and the shared schemas it reaches, so two routes with
 * equal schemas (the description aside) share one, with the same output and the same filtering of
 * unknown fields. A reference left out would fail at start, not at run time: Fastify compiles
 * every serializer when the app is made ready.
 */
export function sharedSerializers(): SerializerFactory {
  const select = SerializerSelector();
  return (externalSchemas, serializerOpts) => {
    const shared = (externalSchemas ?? {}) as Schemas;
    const compiled = new Map<string, ReturnType<ReturnType<SerializerFactory>>>();
    return (route) => {
      const { description: _description, ...schema } = (route.schema ?? {}) as Schemas;
      const key = JSON.stringify(schema);
      let serialize = compiled.get(key);
      if (!serialize) {
        serialize = select(reachable(schema, shared), serializerOpts)(route);
        compiled.set(key, serialize);
      }
      return serialize;
    };
  };
}

/** The shared schemas a schema refers to, directly or through one another (`$ref: 'Id'` or `'Id#/…'`). */
function reachable(schema: unknown, shared: Schemas): Schemas {
  const found: Schemas = {};
  const pending: unknown[] = [schema];
  while (pending.length > 0) {
    const node = pending.pop();
    if (Array.isArray(node)) pending.push(...node);
    else if (node !== null && typeof node === 'object') {
      for (const [k, v] of Object.entries(node)) {
        if (k === '$ref' && typeof v === 'string') {
          const id = v.split('#')[0];
          if (id && !(id in found) && id in shared) {
            found[id] = shared[id];
            pending.push(shared[id]);
          }
        } else pending.push(v);
      }
    }
  }
  return found;
}
