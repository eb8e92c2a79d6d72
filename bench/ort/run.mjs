// Records ONNX Runtime's outputs for the shared models on wolong's
// deterministic inputs, for eval/ort_test.go to compare against.
//
//   cd bench/ort && ONNXRUNTIME_NODE_INSTALL=skip npm install && node run.mjs
//
// It reads testdata/ort/manifest.json (written by
// `WOLONG_ORT_MANIFEST=1 go test -run TestWriteORTManifest ./eval`), which
// lists each model's inputs (name, dtype, concrete shape, optional constant
// fill) and seed. Inputs are generated exactly as eval.RandomTensor does:
// one mulberry32 stream per model, inputs in manifest order (filled inputs
// do not draw), elements in row-major order; floats (u>>>8)/2^23 - 1,
// integers u % 10, bools u & 1. Each output is stored as a strided sample of
// at most MAX_SAMPLES values, so the files stay small.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ort from 'onnxruntime-node';
import { f32ToF16, makeInput, mulberry32 } from '../../internal/ortbench/js/inputs.mjs';

const MAX_SAMPLES = 2048;
const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const outDir = path.join(repo, 'testdata', 'ort');
const modelsDir = path.resolve(repo, '..', 'shared', 'models');

function encode(v) {
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
  return v;
}

function halfToNumber(h) {
  const s = (h & 0x8000) ? -1 : 1;
  const e = (h >>> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

async function main() {
  const manifest = JSON.parse(fs.readFileSync(path.join(outDir, 'manifest.json'), 'utf8'));
  ort.env.logLevel = 'error';
  for (const entry of manifest.models) {
    const file = path.join(outDir, entry.model.replaceAll('/', '__').replace(/\.onnx$/, '.json'));
    const rec = { model: entry.model, ort: '1.30.0', outputs: [] };
    try {
      const next = mulberry32(entry.seed);
      const feeds = {};
      for (const inp of entry.inputs || []) feeds[inp.name] = makeInput(ort.Tensor, next, inp, f32ToF16);
      const session = await ort.InferenceSession.create(path.join(modelsDir, entry.model), { graphOptimizationLevel: 'disabled' });
      const res = await session.run(feeds);
      for (const name of session.outputNames) {
        const t = res[name];
        let data = t.data;
        if (t.type === 'float16' && data instanceof Uint16Array) data = Array.from(data, halfToNumber);
        const count = data.length;
        const stride = Math.max(1, Math.ceil(count / MAX_SAMPLES));
        const values = [];
        for (let i = 0; i < count; i += stride) values.push(encode(data[i]));
        rec.outputs.push({ name, dtype: t.type, dims: t.dims.map(Number), count, stride, values });
      }
    } catch (e) {
      rec.error = String(e && e.message ? e.message : e).split('\n')[0];
    }
    fs.writeFileSync(file, JSON.stringify(rec) + '\n');
    console.log(`${entry.model}: ${rec.error ? 'ERROR ' + rec.error : rec.outputs.length + ' outputs'}`);
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
