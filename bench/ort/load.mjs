// Loads each ONNX file named on the command line into an ONNX Runtime
// session (graph optimizations off) and prints one line per file:
// "ok <file>" or "FAIL <file>: <reason>". Exits 1 if any failed.
// Used by bench/ort/check_export.sh to check that wolong's exports load.
import * as ort from 'onnxruntime-node';
ort.env.logLevel = 'error';

let failed = 0;
for (const f of process.argv.slice(2)) {
  try {
    const s = await ort.InferenceSession.create(f, { graphOptimizationLevel: 'disabled', intraOpNumThreads: 1, logSeverityLevel: 3 });
    await s.release?.();
    console.log(`ok ${f}`);
  } catch (e) {
    failed++;
    console.log(`FAIL ${f}: ${String(e.message || e).split('\n')[0]}`);
  }
}
process.exit(failed ? 1 : 0);
