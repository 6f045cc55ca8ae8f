import { isMainThread } from 'node:worker_threads';

/** The variable onnxruntime reads when it creates its environment (`ORT_DISABLE_TELEMETRY=1`). */
export const ONNX_TELEMETRY_OFF = 'ORT_DISABLE_TELEMETRY';

/**
 * onnxruntime's Linux build sends usage events to Microsoft unless the environment says not to; a
 * self-hosted service sends nothing anywhere (and a host without DNS stalled on the lookups). Set
 * on the main thread before any thread starts, since native code reads the real environment.
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
