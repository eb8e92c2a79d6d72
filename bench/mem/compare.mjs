// Runs two ONNX models in ONNX Runtime on the same deterministic float32
// inputs and compares their outputs:
//
//   node compare.mjs A.onnx B.onnx name=1x8192 [name=dims ...]
//
// Prints each model's load time and the largest difference per output;
// exits 1 when a model fails to load or run, or an output differs by more
// than 1e-5 + 1e-4 * |a|. Run from bench/ort's node_modules (see
// ort_external.sh).
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '..', 'ort', 'package.json'));
const ort = require('onnxruntime-node');
ort.env.logLevel = 'error';

const [a, b, ...specs] = process.argv.slice(2);
let seed = 12345;
const rand = () => { seed = (seed * 1103515245 + 12345) >>> 0; return (seed >>> 8) / 2 ** 23 - 1; };
const feeds = {};
for (const s of specs) {
  const [name, dims] = s.split('=');
  const shape = dims.split('x').map(Number);
  const data = new Float32Array(shape.reduce((x, y) => x * y, 1)).map(rand);
  feeds[name] = new ort.Tensor('float32', data, shape);
}
async function run(file) {
  const t0 = Date.now();
  const s = await ort.InferenceSession.create(file, { graphOptimizationLevel: 'disabled', intraOpNumThreads: 1, logSeverityLevel: 3 });
  const load = (Date.now() - t0) / 1000;
  const out = await s.run(feeds);
  await s.release?.();
  return { load, out };
}
let ok = true;
try {
  const ra = await run(a);
  const rb = await run(b);
  console.log(`loaded ${a} in ${ra.load.toFixed(1)} s, ${b} in ${rb.load.toFixed(1)} s`);
  for (const k of Object.keys(ra.out)) {
    const x = ra.out[k].data, y = rb.out[k]?.data;
    if (!y || y.length !== x.length) { console.log(`FAIL output ${k}: missing or of another size`); ok = false; continue; }
    let worst = 0, bad = 0, big = 0;
    for (let i = 0; i < x.length; i++) {
      big = Math.max(big, Math.abs(x[i]));
      const d = Math.abs(x[i] - y[i]);
      worst = Math.max(worst, d);
      if (!(d <= 1e-5 + 1e-4 * Math.abs(x[i]))) bad++;
    }
    console.log(`${bad ? 'FAIL' : 'ok'} output ${k}: ${x.length} values, max |a| ${big.toExponential(2)}, max |a-b| ${worst.toExponential(2)}${bad ? `, ${bad} out of tolerance` : ''}`);
    ok = ok && !bad;
  }
} catch (e) {
  console.log(`FAIL ${String(e.message || e).split('\n')[0]}`);
  ok = false;
}
process.exit(ok ? 0 : 1);
