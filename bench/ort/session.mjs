// Times ONNX Runtime's session creation, as a user's first step costs it:
// InferenceSession.create with graph optimizations disabled and one
// thread, RUNS times per file (interleaved), timed inside node (node's own
// start-up excluded). Prints "ok FILE SECONDS" per run or "FAIL FILE:
// reason". Used by bench/speed.sh.
//
//   node session.mjs RUNS FILE.onnx ...
import * as ort from 'onnxruntime-node';
ort.env.logLevel = 'error';

const runs = Number(process.argv[2]);
const files = process.argv.slice(3);
for (let r = 0; r < runs; r++) {
  for (const f of files) {
    try {
      const t0 = performance.now();
      const s = await ort.InferenceSession.create(f, { graphOptimizationLevel: 'disabled', intraOpNumThreads: 1, logSeverityLevel: 3 });
      const t = (performance.now() - t0) / 1000;
      await s.release?.();
      console.log(`ok ${f} ${t.toFixed(3)}`);
    } catch (e) {
      console.log(`FAIL ${f}: ${String(e.message || e).split('\n')[0]}`);
    }
  }
}
