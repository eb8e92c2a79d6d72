// Runs ONNX Runtime 1.30 once per model on given inputs and writes the
// outputs, for comparing models (wolong verify --ort) and checking
// exported models load. wolong embeds this file (internal/ortbench) and
// runs it from its harness folder.
//
//   node run.mjs SPEC.json OUTDIR
//
// SPEC: {"level": "disabled", "threads": 1, "models": [{"model": PATH,
// "inputs": [{"name", "dtype", "shape", "file"}], "out": NAME}]}. Each input
// file holds the tensor's packed little-endian elements (bool one byte,
// float16 two), or a JSON array for strings. Models run one after another
// in this one process, each in its own session (graph optimizations at the
// given level, default disabled; 1 intra-op thread by default), which is
// released before the next.
//
// Writes OUTDIR/NAME.json: {"model", "outputs": [{"name", "dtype", "dims",
// "file"}]} with each output's packed elements in OUTDIR/NAME.K.bin (a
// JSON array for strings), or {"model", "error"} when ONNX Runtime cannot
// load or run the model. Prints one line per model: "NAME: ok" or
// "NAME: ERROR message".
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const home = process.env.WOLONG_ORT_HOME || here;
const ort = createRequire(path.join(home, 'package.json'))('onnxruntime-node');

const arrays = {
  float32: Float32Array, float64: Float64Array, float16: Uint16Array,
  int8: Int8Array, uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array,
  int32: Int32Array, uint32: Uint32Array, int64: BigInt64Array, uint64: BigUint64Array,
  bool: Uint8Array,
};

function readInput(inp) {
  const n = inp.shape.reduce((a, b) => a * b, 1);
  if (inp.dtype === 'string') {
    return new ort.Tensor('string', JSON.parse(fs.readFileSync(inp.file, 'utf8')), inp.shape);
  }
  const A = arrays[inp.dtype];
  if (!A) throw new Error(`input ${inp.name}: dtype ${inp.dtype} is not supported by onnxruntime-node`);
  const buf = fs.readFileSync(inp.file);
  if (buf.length !== n * A.BYTES_PER_ELEMENT) throw new Error(`input ${inp.name}: ${buf.length} bytes for ${n} ${inp.dtype} elements`);
  const ab = new ArrayBuffer(buf.length);
  new Uint8Array(ab).set(buf);
  return new ort.Tensor(inp.dtype, new A(ab), inp.shape);
}

function writeOutput(outDir, name, k, t) {
  const file = `${name}.${k}.bin`;
  if (t.type === 'string') {
    fs.writeFileSync(path.join(outDir, file), JSON.stringify(Array.from(t.data)));
  } else {
    const d = t.data;
    fs.writeFileSync(path.join(outDir, file), Buffer.from(d.buffer, d.byteOffset, d.byteLength));
  }
  return { dtype: t.type, dims: Array.from(t.dims, Number), file };
}

async function runOne(entry, opt, outDir) {
  const rec = { model: entry.model };
  let session;
  try {
    session = await ort.InferenceSession.create(entry.model, {
      graphOptimizationLevel: opt.level, intraOpNumThreads: opt.threads, interOpNumThreads: 1,
      executionMode: 'sequential', logSeverityLevel: 3,
    });
    const feeds = {};
    for (const inp of entry.inputs || []) feeds[inp.name] = readInput(inp);
    const res = await session.run(feeds);
    rec.outputs = session.outputNames.map((name, k) => {
      const t = res[name];
      if (!t || t.dims === undefined) throw new Error(`output ${name} is not a tensor`);
      return { name, ...writeOutput(outDir, entry.out, k, t) };
    });
  } catch (err) {
    rec.error = String(err?.message ?? err).split('\n')[0];
  } finally {
    if (session) await session.release();
  }
  fs.writeFileSync(path.join(outDir, `${entry.out}.json`), JSON.stringify(rec) + '\n');
  return rec;
}

async function main() {
  const [specFile, outDir] = process.argv.slice(2);
  if (!specFile || !outDir) {
    console.error('usage: node run.mjs SPEC.json OUTDIR');
    process.exit(2);
  }
  const spec = JSON.parse(fs.readFileSync(specFile, 'utf8'));
  const opt = { level: spec.level || 'disabled', threads: spec.threads || 1 };
  ort.env.logLevel = 'error';
  fs.mkdirSync(outDir, { recursive: true });
  for (const e of spec.models) {
    const rec = await runOne(e, opt, outDir);
    console.log(rec.error ? `${e.out}: ERROR ${rec.error}` : `${e.out}: ok`);
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
