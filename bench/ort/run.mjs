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

const MAX_SAMPLES = 2048;
const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const outDir = path.join(repo, 'testdata', 'ort');
const modelsDir = path.resolve(repo, '..', 'shared', 'models');

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

// f32ToF16 converts a number to IEEE half bits, rounding to nearest even.
const f32buf = new Float32Array(1);
const u32buf = new Uint32Array(f32buf.buffer);
function f32ToF16(v) {
  f32buf[0] = v;
  const b = u32buf[0];
  const sign = (b >>> 16) & 0x8000;
  let exp = ((b >>> 23) & 0xff) - 127 + 15;
  let mant = b & 0x7fffff;
  if ((b & 0x7fffffff) > 0x7f800000) return sign | 0x7e00;
  if (exp >= 0x1f) return sign | 0x7c00;
  if (exp <= 0) {
    if (exp < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - exp;
    const half = 1 << (shift - 1);
    let r = mant >>> shift;
    const rem = mant & ((1 << shift) - 1);
    if (rem > half || (rem === half && (r & 1))) r++;
    return sign | r;
  }
  let r = (exp << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && (r & 1))) r++;
  return sign | r;
}

function makeInput(next, inp) {
  const n = inp.shape.reduce((a, b) => a * b, 1);
  const draw = inp.fill === undefined;
  const val = (u) => (draw ? u : null);
  const num = () => {
    if (!draw) return inp.fill;
    return ((next() >>> 8) / 8388608) - 1;
  };
  const int = () => (draw ? next() % 10 : inp.fill);
  switch (inp.dtype) {
    case 'float32': { const a = new Float32Array(n); for (let i = 0; i < n; i++) a[i] = num(); return new ort.Tensor('float32', a, inp.shape); }
    case 'float64': { const a = new Float64Array(n); for (let i = 0; i < n; i++) a[i] = num(); return new ort.Tensor('float64', a, inp.shape); }
    case 'float16': { const a = new Uint16Array(n); for (let i = 0; i < n; i++) a[i] = f32ToF16(num()); return new ort.Tensor('float16', a, inp.shape); }
    case 'int64': { const a = new BigInt64Array(n); for (let i = 0; i < n; i++) a[i] = BigInt(int()); return new ort.Tensor('int64', a, inp.shape); }
    case 'int32': { const a = new Int32Array(n); for (let i = 0; i < n; i++) a[i] = int(); return new ort.Tensor('int32', a, inp.shape); }
    case 'int8': { const a = new Int8Array(n); for (let i = 0; i < n; i++) a[i] = int(); return new ort.Tensor('int8', a, inp.shape); }
    case 'uint8': { const a = new Uint8Array(n); for (let i = 0; i < n; i++) a[i] = int(); return new ort.Tensor('uint8', a, inp.shape); }
    case 'bool': { const a = new Uint8Array(n); for (let i = 0; i < n; i++) a[i] = draw ? (next() & 1) : (inp.fill ? 1 : 0); return new ort.Tensor('bool', a, inp.shape); }
  }
  void val;
  throw new Error(`input ${inp.name}: dtype ${inp.dtype} not handled`);
}

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
      for (const inp of entry.inputs || []) feeds[inp.name] = makeInput(next, inp);
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
