// Profiles shared models with ONNX Runtime 1.30 on the CPU for wolong's
// calibration (wolong calibrate / wolong validate --ort-profile).
//
//   cd bench/ort && ONNXRUNTIME_NODE_INSTALL=skip npm install onnxruntime-node@1.30.0
//   node profile.mjs OUTDIR [--runs N] [--warmup W] [--max-seconds S] [--cpu-time] [MODEL.onnx ...]
//
// --cpu-time scales every duration of a run by that run's process CPU time /
// wall time (at most 1): on a machine loaded by other work, the time the
// process spent preempted is removed (assumes preemption is spread evenly
// over the run).
//
// MODEL paths are relative to ../shared/models (default: every model in
// testdata/ort/manifest.json). Each model runs with one intra-op and one
// inter-op thread, graph optimizations disabled (ORT executes the model's own
// nodes, as wolong's baseline simulation does), the sequential executor and
// profiling on; inputs are deterministic (the manifest's shapes, seeded
// uniform values in [-1, 1), integer inputs 0..9 or the manifest's fill).
//
// ORT writes one event per node per run. This script drops the warm-up runs
// and writes OUTDIR/<model path with / as __>.json: a Chrome-trace JSON array
// in ORT's own event format holding, per node, the MEDIAN duration over the
// measured runs (one "<node>_kernel_time" event each, in execution order),
// one "model_run" event with the median end-to-end run time, and one
// metadata event {"cat":"wolong","name":"wolong_profile"} recording the
// model path, input shapes, runs and ORT version.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ort from 'onnxruntime-node';
import { makeInput, mulberry32 } from '../../internal/ortbench/js/inputs.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const modelsDir = path.resolve(repo, '..', 'shared', 'models');
const manifestPath = path.join(repo, 'testdata', 'ort', 'manifest.json');

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

async function profileModel(entry, outDir, opt) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'wolong-ort-'));
  const session = await ort.InferenceSession.create(path.join(modelsDir, entry.model), {
    graphOptimizationLevel: 'disabled',
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    enableCpuMemArena: true,
    enableProfiling: true,
    profileFilePrefix: path.join(tmp, 'ort'),
  });
  const next = mulberry32(entry.seed ?? 1);
  const feeds = {};
  for (const inp of entry.inputs || []) feeds[inp.name] = makeInput(ort.Tensor, next, inp);
  const start = Date.now();
  const ratios = []; // per run: process CPU time / wall time, at most 1
  let runs = 0;
  for (; runs < opt.warmup + opt.runs; runs++) {
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    await session.run(feeds);
    const wallUs = Number(process.hrtime.bigint() - t0) / 1000;
    const c = process.cpuUsage(c0);
    ratios.push(Math.min(1, (c.user + c.system) / Math.max(wallUs, 1)));
    if (runs >= opt.warmup + 2 && (Date.now() - start) / 1000 > opt.maxSeconds) { runs++; break; }
  }
  session.endProfiling();
  await session.release();
  const files = fs.readdirSync(tmp).filter((f) => f.endsWith('.json'));
  if (files.length !== 1) throw new Error(`expected one ORT profile in ${tmp}, found ${files.length}`);
  const events = JSON.parse(fs.readFileSync(path.join(tmp, files[0]), 'utf8'));
  fs.rmSync(tmp, { recursive: true, force: true });

  const runEvents = events.filter((e) => e.cat === 'Session' && e.name === 'model_run').sort((a, b) => a.ts - b.ts);
  const skip = Math.min(opt.warmup, runEvents.length - 1);
  const measured = runEvents.slice(skip);
  // With --cpu-time, every duration is scaled by its run's CPU/wall ratio:
  // time the process spent preempted on a loaded machine is removed.
  const ratioOf = (i) => (opt.cpuTime && ratios.length === runEvents.length ? ratios[i] : 1);
  const runOf = (ts) => {
    for (let i = runEvents.length - 1; i >= 0; i--) if (ts >= runEvents[i].ts) return i;
    return -1;
  };
  const byNode = new Map(); // name -> {first, durs, args}
  for (const e of events) {
    if (e.cat !== 'Node' || !e.name.endsWith('_kernel_time')) continue;
    const ri = runOf(e.ts);
    if (ri < skip) continue;
    let r = byNode.get(e.name);
    if (!r) { r = { ts: e.ts, durs: [], args: e.args }; byNode.set(e.name, r); }
    r.durs.push(e.dur * ratioOf(ri));
  }
  const nodes = [...byNode.entries()].sort((a, b) => a[1].ts - b[1].ts);
  const out = [{
    cat: 'wolong', name: 'wolong_profile', ph: 'M', pid: 0, tid: 0, ts: 0,
    args: {
      model: entry.model, model_path: path.join(modelsDir, entry.model), ort: '1.30.0', threads: 1, graph_optimization: 'disabled',
      runs: measured.length, warmup: runs - measured.length,
      time: opt.cpuTime ? 'wall time x per-run CPU/wall ratio (--cpu-time)' : 'wall time',
      cpu_wall_ratio_median: median(ratios.slice(skip)),
      inputs: (entry.inputs || []).map((i) => ({ name: i.name, dtype: i.dtype, shape: i.shape })),
    },
  }];
  const runMedian = median(measured.map((e, i) => e.dur * ratioOf(skip + i)));
  out.push({ cat: 'Session', name: 'model_run', ph: 'X', pid: 0, tid: 0, ts: 0, dur: runMedian });
  let ts = 0;
  for (const [name, r] of nodes) {
    const dur = median(r.durs);
    const a = r.args || {};
    out.push({
      cat: 'Node', name, ph: 'X', pid: 0, tid: 0, ts, dur,
      args: { op_name: a.op_name, provider: a.provider, input_type_shape: a.input_type_shape, output_type_shape: a.output_type_shape },
    });
    ts += dur;
  }
  const file = path.join(outDir, entry.model.replaceAll('/', '__').replace(/\.onnx$/, '.json'));
  fs.writeFileSync(file, JSON.stringify(out) + '\n');
  return { file, runMedian, nodes: nodes.length, runs: measured.length };
}

async function main() {
  const argv = process.argv.slice(2);
  const opt = { runs: 20, warmup: 3, maxSeconds: 10, cpuTime: false };
  const models = [];
  let outDir = null;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--runs') opt.runs = Number(argv[++i]);
    else if (a === '--cpu-time') opt.cpuTime = true;
    else if (a === '--warmup') opt.warmup = Number(argv[++i]);
    else if (a === '--max-seconds') opt.maxSeconds = Number(argv[++i]);
    else if (outDir === null) outDir = a;
    else models.push(a);
  }
  if (!outDir) { console.error('usage: node profile.mjs OUTDIR [--runs N] [--warmup W] [--max-seconds S] [--cpu-time] [MODEL.onnx ...]'); process.exit(2); }
  fs.mkdirSync(outDir, { recursive: true });
  const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
  const entries = models.length ? models.map((m) => manifest.models.find((e) => e.model === m) || { model: m, inputs: [] }) : manifest.models;
  ort.env.logLevel = 'error';
  let failed = 0;
  for (const entry of entries) {
    try {
      const r = await profileModel(entry, outDir, opt);
      console.log(`${entry.model}: ${(r.runMedian / 1000).toFixed(3)} ms median over ${r.runs} runs, ${r.nodes} nodes -> ${path.relative(process.cwd(), r.file)}`);
    } catch (e) {
      failed++;
      console.log(`${entry.model}: ERROR ${String(e && e.message ? e.message : e).split('\n')[0]}`);
    }
  }
  if (failed === entries.length) process.exit(1);
}

main().catch((e) => { console.error(e); process.exit(1); });
