/**
 * The document checks: quality of the photo, barcodes (with AAMVA fields), the printed zone's
 * agreement with the MRZ, and validity against the flow. CPU-heavy parts (opencv.js, zxing-wasm,
 * tesseract.js) load once per thread on first use; every function can run in a worker thread.
 */
;
;
;
;
;
;
;
;
;
;
;
;

export {};
