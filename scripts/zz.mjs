import { tsImport } from 'tsx/esm/api';
const { bundleSources } = await tsImport('../apps/server/src/bundle.ts', import.meta.url);
await bundleSources({ entryPoints: process.argv.slice(2), outdir: '/work/main/.tmp/tb1', outbase: '.' });
