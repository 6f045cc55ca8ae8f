/**
 * The document checks: quality of the photo, barcodes (with AAMVA fields), the printed zone's
 * agreement with the MRZ, and validity against the flow. CPU-heavy parts (opencv.js, zxing-wasm,
 * tesseract.js) load once per thread on first use; every function can run in a worker thread.
 */
export { decodeImage, ImageUnreadableError, MAX_INPUT_PIXELS, type DecodedImage } from './decode.ts';
export { assessDocumentQuality, qualityReasons, QUALITY_THRESHOLDS, type DocumentQuality, type QualityMeasures } from './quality.ts';
export { locateDocument, warpDocument, type DocumentLocation } from './locate.ts';
export { readBarcodes, readBarcodesDetailed, BARCODE_PIXEL_BUDGET, type Barcode, type BarcodeReading, type ReadBarcodesOptions } from './barcodes.ts';
export { parseAamva, isAamva } from './aamva.ts';
export { compareBarcode, barcodePresenceReport } from './barcode-compare.ts';
export { readPrintedZone, type PrintedZoneResult, type ReadPrintedZoneOptions } from './printed-zone.ts';
export { PRINTED_FIELDS, type Agreement, type PrintedField } from './printed-zone-match.ts';
export { loadOcrReaders, closeOcrReaders } from './ocr-worker.ts';
export { loadZxingReader, loadZxingWriter } from './zxing.ts';
export { checkValidity, typesForDocumentCode, type ValidityInput } from './validity.ts';
export { issuingAlpha2 } from './issuing-country.ts';
