/** Files the journey's build copies beside the bundle under a hashed name (esbuild's `file` loader): the import is their URL. */
declare module '*.bin' {
  const url: string;
  export default url;
}
declare module '*.wasm' {
  const url: string;
  export default url;
}
