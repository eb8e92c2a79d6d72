// For each model on the command line, creates an ONNX Runtime session at
// the 'extended' optimization level (CPU execution provider), saves the
// optimized graph, and prints "<model>\t<optimized model path>". The node
// counts are read by bench/ort/kernels_vs_ort.sh with wolong inspect.
import * as ort from 'onnxruntime-node';
import path from 'node:path';
ort.env.logLevel = 'error';

const outDir = process.env.OUT_DIR || '/tmp';
for (const f of process.argv.slice(2)) {
  const out = path.join(outDir, path.basename(f, '.onnx') + '.ort-extended.onnx');
  try {
    const s = await ort.InferenceSession.create(f, {
      graphOptimizationLevel: 'extended', optimizedModelFilePath: out,
      intraOpNumThreads: 1, logSeverityLevel: 3,
    });
    await s.release?.();
    console.log(`${f}\t${out}`);
  } catch (e) {
    console.log(`${f}\tFAIL ${String(e.message || e).split('\n')[0]}`);
  }
}
