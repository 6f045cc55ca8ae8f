import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { ConsoleAssets } from './server/assets.ts';

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** Below this, compression saves less than the headers it adds. */
const MIN_BYTES = 1024;

/**
 * Compresses every asset once, at build (brotli at its best quality, gzip level 9), so that the
 * console server picks a ready encoding per request instead of compressing on the fly. An encoding
 * is kept only when it is smaller than the original.
 */
export async function precompress(assets: ConsoleAssets): Promise<void> {
  await Promise.all(
    [...assets.values()]
      .filter((asset) => asset.body.length >= MIN_BYTES)
      .map(async (asset) => {
        const [br, gz] = await Promise.all([
          brotli(asset.body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: asset.body.length } }),
          gzipAsync(asset.body, { level: 9 }),
        ]);
        asset.encoded = {};
        if (br.length < asset.body.length) asset.encoded.br = br;
        if (gz.length < asset.body.length) asset.encoded.gzip = gz;
      }),
  );
}
