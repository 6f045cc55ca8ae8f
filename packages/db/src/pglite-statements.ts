import { protocol, type ExecProtocolResult, type PGlite, type QueryOptions, type Results } from '@electric-sql/pglite';

type BackendMessage = ExecProtocolResult['messages'][number];

/**
 * Named statements for PGlite, on its public protocol API: a statement text is parsed and
 * described once, then only bound and executed, in one call into the database (PGlite's query()
 * parses and plans on every call, one call per protocol message). Values are serialised and
 * results parsed as query() does. Used by the database's thread outside transactions only, under
 * its own gate (pglite-thread.ts); what this does not cover (blobs, explicit types or serialisers)
 * goes to query().
 */

export function preparable(options: QueryOptions | undefined): boolean {
  return !options || (!options.blob && !options.paramTypes && !options.serializers && !options.onNotice);
}

interface Field {
  name: string;
  dataTypeID: number;
}

interface Prepared {
  name: string;
  /** Parameter types the server inferred when the statement was prepared. */
  paramTypes: number[];
  /** Its result columns, also known from then on (not described again on each execution). */
  fields: Field[];
}

/** More statement texts than the service has (its queries are built from a fixed set), so eviction is rare. */
const MAX_STATEMENTS = 500;

export class StatementCache {
  private readonly prepared = new Map<string, Prepared>();
  private readonly toClose: string[] = [];
  private counter = 0;

  constructor(private readonly client: PGlite) {}

  /** Runs one statement outside any transaction; the caller holds the thread's gate (pglite-thread.ts). */
  async run(text: string, params: unknown[], options: QueryOptions | undefined): Promise<Results> {
    const statement = this.prepared.get(text) ?? (await this.prepare(text));
    const values = params.map((value, i) => this.serialise(value, statement.paramTypes[i], options));
    const batch = [...this.toClose.splice(0).map((name) => protocol.serialize.close({ type: 'S', name })), bindExecuteSync(statement.name, values)];
    const { messages } = await this.client.execProtocol(concat(batch), { syncToFs: true });
    return toResults(messages, statement.fields, this.client.parsers, options);
  }

  /** Parses the statement under a name of its own and learns its parameter types (one more call, once). */
  private async prepare(text: string): Promise<Prepared> {
    const name = `idv_${++this.counter}`;
    const batch = concat([protocol.serialize.parse({ name, text }), protocol.serialize.describe({ type: 'S', name }), protocol.serialize.sync()]);
    try {
      const { messages } = await this.client.execProtocol(batch, { syncToFs: false });
      const params = messages.find((m) => m.name === 'parameterDescription') as { dataTypeIDs: number[] } | undefined;
      const row = messages.find((m) => m.name === 'rowDescription') as { fields: Field[] } | undefined;
      const fields = (row?.fields ?? []).map((f) => ({ name: f.name, dataTypeID: f.dataTypeID }));
      const statement = { name, paramTypes: params?.dataTypeIDs ?? [], fields };
      this.prepared.set(text, statement);
      if (this.prepared.size > MAX_STATEMENTS) {
        const [oldestText, oldest] = this.prepared.entries().next().value!;
        this.prepared.delete(oldestText);
        this.toClose.push(oldest.name);
      }
      return statement;
    } catch (err) {
      // Closing a statement that does not exist is no error: whether or not the parse succeeded,
      // the name is free again (the text's next run prepares it under a new name).
      await this.client.execProtocol(concat([protocol.serialize.close({ type: 'S', name }), protocol.serialize.sync()]), { syncToFs: false });
      throw err;
    }
  }

  /** As PGlite's query() serialises a parameter: the caller's serialiser, PGlite's, or toString. */
  private serialise(value: unknown, type: number | undefined, options: QueryOptions | undefined): string | null {
    if (value === null || value === undefined) return null;
    const serialiser = (type !== undefined && (options?.serializers?.[type] ?? this.client.serializers[type])) || undefined;
    const text: unknown = serialiser ? serialiser(value) : value;
    // PGlite's serialisers give text (an array serialiser hands back a non-array as it came).
    return typeof text === 'string' ? text : String(text);
  }
}

// Execute (unnamed portal, all rows), then Sync.
const EXECUTE_SYNC = Uint8Array.from([0x45, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0x53, 0, 0, 0, 4]);

/**
 * Bind (text values, text results) + Execute + Sync as one buffer, written in one pass: the
 * protocol library's writer encodes and copies each value several times, which showed in profiles
 * for the case insert's 37 values.
 */
function bindExecuteSync(statement: string, values: (string | null)[]): Uint8Array {
  const lengths = values.map((v) => (v === null ? -1 : Buffer.byteLength(v)));
  const length = 4 + 1 + Buffer.byteLength(statement) + 1 + 2 + 2 + lengths.reduce((n, l) => n + 4 + Math.max(l, 0), 0) + 2;
  const out = Buffer.allocUnsafe(1 + length + EXECUTE_SYNC.length);
  let o = out.writeUInt8(0x42, 0);
  o = out.writeInt32BE(length, o);
  o = out.writeUInt8(0, o); // unnamed portal
  o += out.write(statement, o);
  o = out.writeUInt8(0, o);
  o = out.writeInt16BE(0, o); // every parameter in text
  o = out.writeInt16BE(values.length, o);
  values.forEach((v, i) => {
    o = out.writeInt32BE(lengths[i], o);
    if (v !== null) o += out.write(v, o);
  });
  o = out.writeInt16BE(0, o); // every result column in text
  out.set(EXECUTE_SYNC, o);
  return out;
}

/** The result of one statement, shaped as PGlite's query() returns it. */
function toResults(messages: BackendMessage[], fields: Field[], defaults: PGlite['parsers'], options: QueryOptions | undefined): Results {
  const rows: unknown[] = [];
  const result: Results = { rows: rows as Results['rows'], fields: fields.map((f) => ({ ...f })), affectedRows: 0 };
  const custom = options?.parsers;
  for (const message of messages) {
    if (message.name === 'dataRow') {
      const values = (message as unknown as { fields: (string | null)[] }).fields.map((raw, i) => {
        if (raw === null) return null;
        const type = fields[i].dataTypeID;
        const parser = custom?.[type] ?? defaults[type];
        return parser ? parser(raw, type) : raw;
      });
      rows.push(options?.rowMode === 'array' ? values : Object.fromEntries(values.map((v, i) => [fields[i].name, v])));
    } else if (message.name === 'commandComplete') {
      const parts = (message as unknown as { text: string }).text.split(' ');
      result.command = parts[0];
      const count = parseInt(parts[parts.length - 1], 10);
      if (['INSERT', 'UPDATE', 'DELETE', 'COPY', 'MERGE'].includes(parts[0])) result.affectedRows = count;
      if (!Number.isNaN(count)) result.rowCount = count;
    }
  }
  return result;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
