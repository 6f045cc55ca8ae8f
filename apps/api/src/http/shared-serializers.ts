import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;
type Schemas = Record<string, unknown>;

/** A serializer: the value in, its JSON out. */
type Serialize = (data: unknown) => string;

/** The serializers of each factory not compiled yet, and each app's factory (serializersOf). */
const pending = new WeakMap<SerializerFactory, Set<() => Serialize>>();
const factories = new WeakMap<object, SerializerFactory>();

/**
 * Fastify's serializer factory (fast-json-stringify), compiling each distinct response schema once,
 * against only the shared schemas it refers to, at its first response.
 *
 * Fastify compiles a serializer for every route and status, and most are the same schema: every
 * error status of every route is `{ $ref: 'Error' }`, differing only in the description that lists
 * its codes for the OpenAPI document. And fast-json-stringify checks every shared schema it is
 * given at each compilation, though a response refers to a few. Together they made up most of the
 * time to build the app: seconds at each start of the service, and in every test file.
 * A serializer depends only on its schema and the shared schemas it reaches, so two routes with
 * equal schemas (the description aside) share one, with the same output and the same filtering of
 * unknown fields.
 * Each is compiled when it first serializes, as the validators are (lazy-validators.ts): compiling
 * the ~100 distinct schemas when the app is made ready still took about half a second of CPU at
 * each start and in every test file, for routes most never answer. A schema fast-json-stringify
 * refuses (a reference left out) then fails at its first response: tests/api/errors.test.ts
 * compiles every one (compileEverySerializer).
 */
export function sharedSerializers(): SerializerFactory {
  const select = SerializerSelector();
  const waiting = new Set<() => Serialize>();
  const factory: SerializerFactory = (externalSchemas, serializerOpts) => {
    const shared = (externalSchemas ?? {}) as Schemas;
    const compiled = new Map<string, () => Serialize>();
    return (route) => {
      const { description: _description, ...schema } = (route.schema ?? {}) as Schemas;
      const key = JSON.stringify(schema);
      let ensure = compiled.get(key);
      if (!ensure) {
        let serialize: Serialize | null = null;
        const compile: () => Serialize = () => {
          serialize ??= select(reachable(schema, shared), serializerOpts)(route) as Serialize;
          waiting.delete(compile);
          return serialize;
        };
        ensure = compile;
        waiting.add(compile);
        compiled.set(key, compile);
      }
      const first = ensure;
      return (data: unknown) => first()(data);
    };
  };
  pending.set(factory, waiting);
  return factory;
}

/** Records that `app` was built with `factory`, for compileEverySerializer. */
export function serializersOf(app: object, factory: SerializerFactory): void {
  factories.set(app, factory);
}

/**
 * Compiles every serializer of the app not compiled yet and returns how many: a schema
 * fast-json-stringify refuses throws here rather than at a route's first response.
 */
export function compileEverySerializer(app: object): number {
  const factory = factories.get(app);
  const waiting = [...((factory && pending.get(factory)) ?? [])];
  for (const ensure of waiting) ensure();
  return waiting.length;
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
