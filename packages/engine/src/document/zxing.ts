import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

/**
 * zxing-wasm's reader, loaded once per thread from the wasm file shipped in node_modules. The
 * package's default `locateFile` fetches the binary from a CDN: passing `wasmBinary` keeps every
 * byte local (nothing is downloaded at run time).
 */
const require = createRequire(import.meta.url);
type ReaderModule = typeof import('zxing-wasm/reader');
type WriterModule = typeof import('zxing-wasm/writer');

let reader: Promise<ReaderModule> | null = null;
let writer: Promise<WriterModule> | null = null;

async function wasmBytes(specifier: string): Promise<ArrayBuffer> {
  const file = await readFile(require.resolve(specifier));
  return file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength) as ArrayBuffer;
}

export function loadZxingReader(): Promise<ReaderModule> {
  reader ??= (async () => {
    const mod = await import('zxing-wasm/reader');
    await mod.prepareZXingModule({ overrides: { wasmBinary: await wasmBytes('zxing-wasm/reader/zxing_reader.wasm') }, fireImmediately: true });
    return mod;
  })();
  return reader;
}

/** The writer (tests and the document generator encode AAMVA PDF417 with it). */
export function loadZxingWriter(): Promise<WriterModule> {
  writer ??= (async () => {
    const mod = await import('zxing-wasm/writer');
    await mod.prepareZXingModule({ overrides: { wasmBinary: await wasmBytes('zxing-wasm/writer/zxing_writer.wasm') }, fireImmediately: true });
    return mod;
  })();
  return writer;
}
