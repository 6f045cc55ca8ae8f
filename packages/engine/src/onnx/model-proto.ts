/**
 * Writes ONNX models (protobuf wire format, onnx.proto's field numbers) from graphs built in code,
 * so onnxruntime runs weights the repository keeps in another form without a converter or a
 * second copy. Only what those graphs use is written.
 */

/** Opset the graphs are written for (Gemm, Relu, Conv… as defined there). */
const ONNX_OPSET = 17;
/** IR version 8 goes with opset 17. */
const IR_VERSION = 8;
const FLOAT = 1;
const INT64 = 7;

type Attribute = number | number[] | string;

export interface OnnxNode {
  op: string;
  inputs: string[];
  outputs: string[];
  /** Integer, float (non-integer numbers), integer-list or string attributes. */
  attributes?: Record<string, Attribute>;
}

interface OnnxInitializer {
  name: string;
  dims: number[];
  data: Float32Array | BigInt64Array;
}

export interface OnnxGraph {
  nodes: OnnxNode[];
  initializers: OnnxInitializer[];
  /** Float32 inputs and outputs; a dimension given as a string is symbolic (any size), and no dims at all (null) leaves even the rank to the graph. */
  inputs: { name: string; dims: (number | string)[] }[];
  outputs: { name: string; dims: (number | string)[] | null }[];
}

/**
 * A graph being written in code: its nodes and initialisers, and the bookkeeping every graph
 * writer of the engine needs (tf-graph.ts). Each initialiser is added once per
 * name; a node's output is the name given, or a fresh one.
 */
export interface GraphBuilder {
  readonly nodes: OnnxNode[];
  readonly initializers: OnnxInitializer[];
  /** Adds a node and returns the name of its output. */
  node(op: string, inputs: string[], attributes?: OnnxNode['attributes'], output?: string): string;
  floats(name: string, dims: number[], values: Float32Array): string;
  int64s(name: string, values: readonly (number | bigint)[]): string;
}

export function graphBuilder(): GraphBuilder {
  const nodes: OnnxNode[] = [];
  const initializers: OnnxInitializer[] = [];
  const names = new Set<string>();
  let fresh = 0;
  const constant = (name: string, dims: number[], data: Float32Array | BigInt64Array) => {
    if (!names.has(name)) {
      names.add(name);
      initializers.push({ name, dims, data });
    }
    return name;
  };
  return {
    nodes,
    initializers,
    node: (op, inputs, attributes, output = `t${fresh++}`) => {
      nodes.push({ op, inputs, outputs: [output], ...(attributes ? { attributes } : {}) });
      return output;
    },
    floats: (name, dims, values) => constant(name, dims, values),
    int64s: (name, values) => constant(name, [values.length], BigInt64Array.from(values, (v) => BigInt(v))),
  };
}

/**
 * Protobuf wire format as a list of chunks: a nested message or a weight's bytes is appended
 * without copying, and the whole model is joined once at the end (weights are megabytes).
 */
class ProtoWriter {
  private chunks: Uint8Array[] = [];
  private pending: number[] = [];
  length = 0;

  private flush(): void {
    if (this.pending.length === 0) return;
    this.chunks.push(Uint8Array.from(this.pending));
    this.pending = [];
  }

  private push(bytes: Uint8Array): void {
    this.flush();
    this.chunks.push(bytes);
    this.length += bytes.length;
  }

  varint(value: number): this {
    let v = BigInt(value);
    if (v < 0n) v += 1n << 64n; // negative int64: ten-byte two's complement
    while (v > 127n) {
      this.pending.push(Number(v & 127n) | 128);
      this.length++;
      v >>= 7n;
    }
    this.pending.push(Number(v));
    this.length++;
    return this;
  }

  private key(field: number, wire: 0 | 2 | 5): this {
    return this.varint(field * 8 + wire);
  }

  int(field: number, value: number): this {
    return this.key(field, 0).varint(value);
  }

  float(field: number, value: number): this {
    const b = Buffer.alloc(4);
    b.writeFloatLE(value);
    this.key(field, 5).push(b);
    return this;
  }

  raw(field: number, data: Uint8Array): this {
    this.key(field, 2).varint(data.length).push(data);
    return this;
  }

  string(field: number, value: string): this {
    return this.raw(field, Buffer.from(value, 'utf8'));
  }

  message(field: number, inner: ProtoWriter): this {
    inner.flush();
    this.key(field, 2).varint(inner.length);
    this.flush();
    this.chunks.push(...inner.chunks);
    this.length += inner.length;
    return this;
  }

  finish(): Uint8Array {
    this.flush();
    return Buffer.concat(this.chunks, this.length);
  }
}

// AttributeProto.type values.
const ATTRIBUTE_FLOAT = 1;
const ATTRIBUTE_INT = 2;
const ATTRIBUTE_STRING = 3;
const ATTRIBUTE_INTS = 7;

function attribute(name: string, value: Attribute): ProtoWriter {
  const a = new ProtoWriter().string(1, name);
  if (typeof value === 'string') return a.string(4, value).int(20, ATTRIBUTE_STRING);
  if (Array.isArray(value)) {
    for (const v of value) a.int(8, v);
    return a.int(20, ATTRIBUTE_INTS);
  }
  return Number.isInteger(value) ? a.int(3, value).int(20, ATTRIBUTE_INT) : a.float(2, value).int(20, ATTRIBUTE_FLOAT);
}

function node(n: OnnxNode): ProtoWriter {
  const w = new ProtoWriter();
  for (const i of n.inputs) w.string(1, i);
  for (const o of n.outputs) w.string(2, o);
  w.string(4, n.op);
  for (const [name, value] of Object.entries(n.attributes ?? {})) w.message(5, attribute(name, value));
  return w;
}

function initializer(t: OnnxInitializer): ProtoWriter {
  const w = new ProtoWriter();
  for (const d of t.dims) w.int(1, d);
  // raw_data is little-endian, as typed arrays are on every platform Node runs on here.
  const type = t.data instanceof BigInt64Array ? INT64 : FLOAT;
  return w.int(2, type).string(8, t.name).raw(9, new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength));
}

function valueInfo(name: string, dims: (number | string)[] | null): ProtoWriter {
  const tensorType = new ProtoWriter().int(1, FLOAT);
  if (dims) {
    const shape = new ProtoWriter();
    for (const d of dims) shape.message(1, typeof d === 'string' ? new ProtoWriter().string(2, d) : new ProtoWriter().int(1, d));
    tensorType.message(2, shape);
  }
  return new ProtoWriter().string(1, name).message(2, new ProtoWriter().message(1, tensorType));
}

/** The serialised model (bytes onnxruntime's InferenceSession.create takes). */
export function writeOnnxModel(graph: OnnxGraph): Uint8Array {
  const g = new ProtoWriter();
  for (const n of graph.nodes) g.message(1, node(n));
  g.string(2, 'graph');
  for (const t of graph.initializers) g.message(5, initializer(t));
  for (const i of graph.inputs) g.message(11, valueInfo(i.name, i.dims));
  for (const o of graph.outputs) g.message(12, valueInfo(o.name, o.dims));
  return new ProtoWriter()
    .int(1, IR_VERSION)
    .message(8, new ProtoWriter().string(1, '').int(2, ONNX_OPSET))
    .message(7, g)
    .finish();
}
