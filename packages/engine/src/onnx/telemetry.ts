import { isMainThread } from 'node:worker_threads';

/** The variable onnxruntime reads when it creates its environment (`ORT_DISABLE_TELEMETRY=1`). */
export const ONNX_TELEMETRY_OFF = 'ORT_DISABLE_TELEMETRY';

/**
 * onnxruntime's Linux build (1.30, in `onnxruntime-node`) sends usage events to Microsoft
 * (`mobile.events.data.microsoft.com`) unless the process's environment says not to: nothing of
 * a case would be in them, but a self-hosted service sends nothing anywhere. Seen on a machine
 * whose DNS never answers: the lookups held libuv's threads and the service took minutes to
 * listen. A worker thread's `process.env` is its own copy, read by no native code, so the
 * variable is set on the main thread (the real environment) before any thread starts; in a
 * thread this only checks that it was.
 */
export function disableOnnxTelemetry(mainThread = isMainThread, env: Record<string, string | undefined> = process.env): void {
  if (mainThread) {
    env[ONNX_TELEMETRY_OFF] = '1';
    return;
  }
  if (env[ONNX_TELEMETRY_OFF] !== '1') {
    throw new Error(`${ONNX_TELEMETRY_OFF}=1 must be set before this thread started (ChecksPool sets it): onnxruntime would send telemetry`);
  }
}

// On import, before `onnxruntime-node` loads in this process (session.ts imports this module first).
disableOnnxTelemetry();
