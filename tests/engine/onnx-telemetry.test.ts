import { test } from 'node:test';
import assert from 'node:assert/strict';
import { disableOnnxTelemetry, ONNX_TELEMETRY_OFF } from '../../packages/engine/src/onnx/telemetry.ts';
import { ChecksPool } from '../../packages/engine/src/pool/checks-pool.ts';

/**
 * onnxruntime's Linux build sends usage events to Microsoft unless ORT_DISABLE_TELEMETRY=1 is in
 * the process's environment when it starts: a self-hosted service must send nothing anywhere.
 */
test('onnxruntime is told not to send telemetry, on the main thread, before the checks threads start', async () => {
  delete process.env[ONNX_TELEMETRY_OFF];
  const pool = new ChecksPool({ threads: 1 });
  try {
    assert.equal(process.env[ONNX_TELEMETRY_OFF], '1');
    // The threads' models load with it (a whole warm-up would fail if a thread refused).
    assert.ok((await pool.modelLoads()).images.threadId > 0);
  } finally {
    await pool.destroy();
  }
});

test('a thread started without it refuses to load onnxruntime, rather than load it with telemetry on', () => {
  // A worker thread's process.env is its own copy, which no native code reads: only the main
  // thread can set the variable, and a thread can only check that it was set before it started.
  assert.throws(() => disableOnnxTelemetry(false, {}), /ORT_DISABLE_TELEMETRY=1 must be set/);
  assert.doesNotThrow(() => disableOnnxTelemetry(false, { [ONNX_TELEMETRY_OFF]: '1' }));
  const env: Record<string, string> = {};
  disableOnnxTelemetry(true, env);
  assert.deepEqual(env, { [ONNX_TELEMETRY_OFF]: '1' });
});
