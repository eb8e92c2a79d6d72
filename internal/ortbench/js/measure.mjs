// Measures ONNX Runtime 1.30 end-to-end latency as people run it: profiling
// off, warm, many runs, median. The targets of wolong calibrate / validate
// (--ort-latency). wolong embeds this file (internal/ortbench) and runs it
// from its harness folder; bench/ort/latency.sh runs it from the repo.
//
//   node measure.mjs OUTDIR [--runs N] [--warmup W] [--max-seconds S]
//        [--threads T] [--level disabled|basic|extended|all] [--profiled]
//        [--interleave] [--spec SPEC.json] [MODEL.onnx ...]
//
// MODEL paths are relative to ../shared/models (default: every model in
// testdata/ort/manifest.json), or absolute. A SPEC file lists the models
// instead: {"models": [{"model": PATH, "inputs": [{name, dtype, shape,
// fill}], "seed": 1, "out": "file.json"}]}; inputs not listed are taken from
// the manifest entry of the same model path.
//
// Each model runs in its own session: T intra-op threads (default 1), one
// inter-op thread, the sequential executor, the given graph optimization
// level (default disabled: ORT runs the model's own nodes), profiling off.
// Inputs are the deterministic ones of profile.mjs / run.mjs (seeded
// mulberry32). W warm-up runs (default 20, and at least 0.2 s) are dropped;
// then runs continue until N (default 300) or S seconds (default 5) have
// passed, and at least 10. With --interleave every model's session is made
// first and the models take turns, one run each, so a slow drift of the
// machine (another process, frequency) falls on every model alike: use it
// for speedups (a model and its optimized export). With --profiled a second
// session with ORT's profiler on runs alternately with the unprofiled one,
// and the file also records the profiled median: (profiled - unprofiled) /
// nodes executed is the profiler's own cost per node. The profiled session's
// per-node medians over the measured runs are written beside it as
// <name>.profile.json, in ONNX Runtime's event format (a "wolong_profile"
// metadata event, one "model_run" event with the profiled median, one
// "<node>_kernel_time" event per node): wolong's --ort-profile reads it.
//
// Writes OUTDIR/<model path with / as __>.json (or the spec's "out"):
//   {"format": "wolong-ort-latency", "version": 1, "model", "ort",
//    "threads", "graph_optimization", "profiling": false, "inputs",
//    "warmup", "runs", "median_us", "p10_us", "p90_us", "min_us", "mean_us",
//    "cpu_wall_ratio_median", "steady_median_us", "steady_runs",
//    "host": {"cpu", "cores", "platform"}, "date",
//    "profiled_median_us"?, "profiled_node_events"?}
// Times are wall-clock microseconds of session.run (binding inputs and
// returning outputs included, as a caller sees it). steady_median_us is the
// median over the runs the process was not preempted in (process CPU time
// at least 90% of wall time; one thread only), when at least half the runs
// were: on a machine busy with other work it is what the same machine
// would measure quiet; else it equals median_us.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
// The harness folder holding node_modules: WOLONG_ORT_HOME when set
// (bench/ort, or the folder wolong installs in the user's cache), else this
// folder.
const home = process.env.WOLONG_ORT_HOME || here;
const ort = createRequire(path.join(home, 'package.json'))('onnxruntime-node');
const repo = process.env.WOLONG_REPO || path.resolve(here, '..', '..', '..');
const modelsDir = process.env.WOLONG_MODELS || path.resolve(repo, '..', 'shared', 'models');
const manifestPath = path.join(repo, 'testdata', 'ort', 'manifest.json');

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

function makeInput(next, inp) {
  const n = inp.shape.reduce((a, b) => a * b, 1);
  const fill = inp.fill;
  const num = () => (fill === undefined ? ((next() >>> 8) / 8388608) - 1 : fill);
  const int = () => (fill === undefined ? next() % 10 : fill);
  switch (inp.dtype) {
    case 'float32': return new ort.Tensor('float32', Float32Array.from({ length: n }, num), inp.shape);
    case 'float64': return new ort.Tensor('float64', Float64Array.from({ length: n }, num), inp.shape);
    case 'float16': return new ort.Tensor('float16', Uint16Array.from({ length: n }, () => 0x3c00 * (num() > 0)), inp.shape);
    case 'int64': return new ort.Tensor('int64', BigInt64Array.from({ length: n }, () => BigInt(int())), inp.shape);
    case 'int32': return new ort.Tensor('int32', Int32Array.from({ length: n }, int), inp.shape);
    case 'int8': return new ort.Tensor('int8', Int8Array.from({ length: n }, int), inp.shape);
    case 'uint8': return new ort.Tensor('uint8', Uint8Array.from({ length: n }, int), inp.shape);
    case 'bool': return new ort.Tensor('bool', Uint8Array.from({ length: n }, () => (fill === undefined ? next() & 1 : (fill ? 1 : 0))), inp.shape);
  }
  throw new Error(`input ${inp.name}: dtype ${inp.dtype} not handled`);
}

function quantile(xs, q) {
  const s = [...xs].sort((a, b) => a - b);
  if (!s.length) return 0;
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos), hi = Math.ceil(pos);
  return s[lo] + (s[hi] - s[lo]) * (pos - lo);
}
const median = (xs) => quantile(xs, 0.5);

// trimmedMean drops the lowest and highest fraction q of xs: a node's time
// from whole-microsecond profile durations (a median of them would be
// whole microseconds too).
function trimmedMean(xs, q) {
  const s = [...xs].sort((a, b) => a - b);
  const k = Math.floor(s.length * q);
  const t = s.slice(k, s.length - k);
  return t.length ? t.reduce((a, b) => a + b, 0) / t.length : 0;
}

// steady is the median over unpreempted runs (see the header).
function steady(job, opt) {
  const clean = opt.threads === 1 ? job.times.filter((_, i) => job.ratios[i] >= 0.9) : [];
  if (clean.length * 2 < job.times.length) return { steady_median_us: median(job.times), steady_runs: job.times.length };
  return { steady_median_us: median(clean), steady_runs: clean.length };
}

function hostInfo() {
  const cpus = os.cpus();
  return { cpu: cpus.length ? cpus[0].model.trim() : 'unknown', cores: cpus.length, platform: `${os.platform()} ${os.arch()}` };
}

async function makeSession(file, opt, profiled, tmp) {
  const so = {
    graphOptimizationLevel: opt.level,
    intraOpNumThreads: opt.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    enableCpuMemArena: true,
    logSeverityLevel: 3,
  };
  if (profiled) Object.assign(so, { enableProfiling: true, profileFilePrefix: path.join(tmp, 'ort') });
  return ort.InferenceSession.create(file, so);
}

// job: one model to measure: its session(s), feeds and the run times.
async function prepare(entry, opt) {
  const file = path.isAbsolute(entry.model) ? entry.model : path.join(modelsDir, entry.model);
  const next = mulberry32(entry.seed ?? 1);
  const feeds = {};
  for (const inp of entry.inputs || []) feeds[inp.name] = makeInput(next, inp);
  const job = { entry, file, feeds, times: [], ratios: [], ptimes: [], pwarm: 0, tmp: null, pwarmRuns: null, prunRound: null };
  job.session = await makeSession(file, opt, false);
  if (opt.profiled) {
    job.tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'wolong-ort-'));
    job.psession = await makeSession(file, opt, true, job.tmp);
  }
  return job;
}

async function timedRun(session, feeds) {
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await session.run(feeds);
  const us = Number(process.hrtime.bigint() - t0) / 1000;
  const c = process.cpuUsage(c0);
  return { us, ratio: Math.min(1, (c.user + c.system) / Math.max(us, 1)) };
}

// round runs every job once (and its profiled twin); measure says whether
// the times count.
async function round(jobs, measure) {
  for (const j of jobs) {
    const r = await timedRun(j.session, j.feeds);
    if (measure) { j.times.push(r.us); j.ratios.push(r.ratio); }
    if (j.psession) {
      const p = await timedRun(j.psession, j.feeds);
      if (measure) j.ptimes.push(p.us);
      else j.pwarm++;
    }
  }
}

// measureBlocks interleaves the models in blocks: each round gives every
// model a block of runs lasting about opt.blockMs (one unrecorded run
// first, so its caches are as warm as in a loop of its own), and its
// profiled twin as many. A slow spell of the machine (another tenant, a
// frequency change) then falls on every model alike, and is taken out:
// each round's speed factor is the median over the models of the round's
// median over the model's overall median, and every time is divided by its
// round's factor (drift_corrected_median_us). Rounds go on until
// opt.maxSeconds x models seconds have passed (at least 3 rounds); --runs
// does not apply.
async function measureBlocks(all, opt) {
  const t0 = Date.now();
  // a model the runtime fails on is reported and dropped; the rest go on
  const fail = (j, err) => {
    j.failed = true;
    console.log(`${j.entry.model}: ERROR ${String(err?.message ?? err).split('\n')[0]}`);
  };
  let jobs = all;
  for (const j of jobs) {
    try {
      await warmBlocks(j, opt);
    } catch (err) { fail(j, err); }
  }
  jobs = jobs.filter((j) => !j.failed);
  const budget = opt.maxSeconds * jobs.length * 1000;
  for (let r = 0; jobs.length; r++) {
    for (const j of jobs) {
      try {
        await block(j, r, opt);
      } catch (err) { fail(j, err); }
    }
    jobs = jobs.filter((j) => !j.failed);
    if (r >= 2 && Date.now() - t0 > budget) break;
  }
  if (jobs.length) correctDrift(jobs);
  return jobs;
}

async function warmBlocks(j, opt) {
  j.rounds = [];
  j.prounds = [];
  const w0 = Date.now();
  j.pwarmRuns = new Set();
  j.prunRound = [];
  for (let w = 0; w < Math.max(2, opt.warmup) && (w < 2 || Date.now() - w0 < 50); w++) {
    await j.session.run(j.feeds);
    if (j.psession) { await j.psession.run(j.feeds); j.pwarmRuns.add(j.prunRound.length); j.prunRound.push(-1); }
  }
}

// block runs one model's block of round r: a cache-warming run, then runs
// for opt.blockMs (at least one), then as many profiled runs.
async function block(j, r, opt) {
  await j.session.run(j.feeds);
  const b0 = Date.now();
  let k = 0;
  do {
    const x = await timedRun(j.session, j.feeds);
    j.times.push(x.us); j.ratios.push(x.ratio); j.rounds.push(r);
    k++;
  } while (Date.now() - b0 < opt.blockMs);
  if (j.psession) {
    await j.psession.run(j.feeds); j.pwarmRuns.add(j.prunRound.length); j.prunRound.push(-1);
    for (let i = 0; i < k; i++) {
      const x = await timedRun(j.psession, j.feeds);
      j.ptimes.push(x.us); j.prounds.push(r); j.prunRound.push(r);
    }
  }
}

// correctDrift sets each job's drift-corrected times from the rounds'
// speed factors.
function correctDrift(jobs) {
  const rounds = Math.max(...jobs.map((j) => Math.max(...j.rounds))) + 1;
  const factors = [];
  for (let r = 0; r < rounds; r++) {
    const ratios = [];
    for (const j of jobs) {
      const m = median(j.times);
      const xs = j.times.filter((_, i) => j.rounds[i] === r);
      if (xs.length && m > 0) ratios.push(median(xs) / m);
    }
    factors.push(ratios.length ? median(ratios) : 1);
  }
  for (const j of jobs) {
    j.corrected = j.times.map((t, i) => t / factors[j.rounds[i]]);
    j.pcorrected = j.ptimes.map((t, i) => t / factors[j.prounds[i]]);
    j.drift = { rounds, min: Math.min(...factors), max: Math.max(...factors) };
    j.factors = factors;
  }
}

async function measure(jobs, opt) {
  let t0 = Date.now();
  for (let w = 0; w < opt.warmup || Date.now() - t0 < 200; w++) await round(jobs, false);
  t0 = Date.now();
  for (let r = 0; r < opt.runs; r++) {
    await round(jobs, true);
    if (r + 1 >= 10 && (Date.now() - t0) / 1000 > opt.maxSeconds) break;
  }
}

// profiledNodes reads the profiled session's events: the node events per
// run and, per node, the median duration over the measured runs (warm-up
// runs dropped), in execution order.
function profiledNodes(job) {
  job.psession.endProfiling();
  const files = fs.readdirSync(job.tmp).filter((f) => f.endsWith('.json'));
  if (files.length !== 1) throw new Error(`expected one ORT profile in ${job.tmp}, found ${files.length}`);
  const events = JSON.parse(fs.readFileSync(path.join(job.tmp, files[0]), 'utf8'));
  const runs = events.filter((e) => e.cat === 'Session' && e.name === 'model_run').sort((a, b) => a.ts - b.ts);
  // warm-up runs are dropped; in blocks mode, the run before each block
  // too, and each run's node times are divided by its round's factor
  const warm = job.pwarmRuns || new Set(Array.from({ length: Math.min(job.pwarm, runs.length - 1) }, (_, i) => i));
  const factorOf = (i) => (job.prunRound && job.factors && job.prunRound[i] >= 0 ? job.factors[job.prunRound[i]] : 1);
  const runOf = (ts) => {
    for (let i = runs.length - 1; i >= 0; i--) if (ts >= runs[i].ts) return i;
    return -1;
  };
  const byNode = new Map();
  let count = 0;
  for (const e of events) {
    if (e.cat !== 'Node' || !e.name.endsWith('_kernel_time')) continue;
    count++;
    const run = runOf(e.ts);
    if (run < 0 || warm.has(run)) continue;
    let r = byNode.get(e.name);
    if (!r) { r = { ts: e.ts, durs: [], args: e.args }; byNode.set(e.name, r); }
    // ORT truncates durations to whole microseconds: half a microsecond
    // back makes the mean unbiased
    r.durs.push((e.dur + (Number.isInteger(e.dur) ? 0.5 : 0)) / factorOf(run));
  }
  return { perRun: runs.length ? count / runs.length : 0, nodes: [...byNode.entries()].sort((a, b) => a[1].ts - b[1].ts) };
}

function writeProfile(file, rec, nodes) {
  const out = [{
    cat: 'wolong', name: 'wolong_profile', ph: 'M', pid: 0, tid: 0, ts: 0,
    args: {
      model: rec.model, ort: rec.ort, threads: rec.threads, graph_optimization: rec.graph_optimization,
      runs: rec.runs, warmup: rec.warmup, time: 'wall time, profiled session (alternating with an unprofiled one)',
      inputs: rec.inputs.map((i) => ({ name: i.name, dtype: i.dtype, shape: i.shape })),
    },
  }, { cat: 'Session', name: 'model_run', ph: 'X', pid: 0, tid: 0, ts: 0, dur: rec.profiled_median_us }];
  let ts = 0;
  for (const [name, r] of nodes) {
    const dur = trimmedMean(r.durs, 0.1);
    const a = r.args || {};
    out.push({ cat: 'Node', name, ph: 'X', pid: 0, tid: 0, ts, dur, args: { op_name: a.op_name, provider: a.provider, input_type_shape: a.input_type_shape, output_type_shape: a.output_type_shape } });
    ts += dur;
  }
  fs.writeFileSync(file, JSON.stringify(out) + '\n');
}

async function finish(job, opt, outDir) {
  const rec = {
    format: 'wolong-ort-latency', version: 1,
    model: job.entry.model, ort: ort.env.versions?.node || '1.30.0',
    threads: opt.threads, graph_optimization: opt.level, profiling: false,
    inputs: (job.entry.inputs || []).map((i) => ({ name: i.name, dtype: i.dtype, shape: i.shape, ...(i.fill !== undefined ? { fill: i.fill } : {}) })),
    warmup: opt.warmup, runs: job.times.length,
    median_us: median(job.times), p10_us: quantile(job.times, 0.1), p90_us: quantile(job.times, 0.9),
    min_us: Math.min(...job.times), mean_us: job.times.reduce((a, b) => a + b, 0) / job.times.length,
    cpu_wall_ratio_median: median(job.ratios),
    ...steady(job, opt),
    interleaved: opt.interleave || opt.blocks,
    ...(j => j.corrected ? {
      drift_corrected_median_us: median(j.corrected),
      drift_rounds: j.drift.rounds, drift_min: j.drift.min, drift_max: j.drift.max,
    } : {})(job),
    host: hostInfo(), date: new Date().toISOString(),
  };
  const out = job.entry.out
    ? (path.isAbsolute(job.entry.out) ? job.entry.out : path.join(outDir, job.entry.out))
    : path.join(outDir, job.entry.model.replace(/^\/+/, '').replaceAll('/', '__').replace(/\.onnx$/, '.json'));
  if (job.psession) {
    rec.profiled_median_us = median(job.pcorrected || job.ptimes);
    const p = profiledNodes(job);
    rec.profiled_node_events = p.perRun;
    writeProfile(out.replace(/\.json$/, '') + '.profile.json', rec, p.nodes);
    await job.psession.release();
    fs.rmSync(job.tmp, { recursive: true, force: true });
  }
  await job.session.release();
  fs.writeFileSync(out, JSON.stringify(rec, null, 1) + '\n');
  return { out, rec };
}

function report(entry, r) {
  const p = r.rec.profiled_median_us !== undefined ? `, profiled ${(r.rec.profiled_median_us / 1000).toFixed(4)} ms` : '';
  console.log(`${entry.model}: ${(r.rec.median_us / 1000).toFixed(4)} ms median over ${r.rec.runs} runs (p10 ${(r.rec.p10_us / 1000).toFixed(4)}, p90 ${(r.rec.p90_us / 1000).toFixed(4)})${p}`);
}

async function main() {
  const argv = process.argv.slice(2);
  const opt = { runs: 300, warmup: 20, maxSeconds: 5, threads: 1, level: 'disabled', profiled: false, interleave: false, blocks: false, blockMs: 5 };
  const models = [];
  let outDir = null, spec = null;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--runs') opt.runs = Number(argv[++i]);
    else if (a === '--warmup') opt.warmup = Number(argv[++i]);
    else if (a === '--max-seconds') opt.maxSeconds = Number(argv[++i]);
    else if (a === '--threads') opt.threads = Number(argv[++i]);
    else if (a === '--level') opt.level = argv[++i];
    else if (a === '--profiled') opt.profiled = true;
    else if (a === '--interleave') opt.interleave = true;
    else if (a === '--blocks') opt.blocks = true;
    else if (a === '--block-ms') opt.blockMs = Number(argv[++i]);
    else if (a === '--spec') spec = argv[++i];
    else if (outDir === null) outDir = a;
    else models.push(a);
  }
  if (!outDir) {
    console.error('usage: node measure.mjs OUTDIR [--runs N] [--warmup W] [--max-seconds S] [--threads T] [--level L] [--profiled] [--interleave | --blocks [--block-ms B]] [--spec SPEC.json] [MODEL.onnx ...]');
    process.exit(2);
  }
  fs.mkdirSync(outDir, { recursive: true });
  const manifest = fs.existsSync(manifestPath) ? JSON.parse(fs.readFileSync(manifestPath, 'utf8')) : { models: [] };
  const known = (m) => manifest.models.find((e) => e.model === m);
  let entries;
  if (spec) {
    entries = JSON.parse(fs.readFileSync(spec, 'utf8')).models.map((e) => ({ ...(known(e.model) || {}), ...e, inputs: e.inputs || known(e.model)?.inputs || [] }));
  } else {
    entries = models.length ? models.map((m) => known(m) || { model: m, inputs: [] }) : manifest.models;
  }
  ort.env.logLevel = 'error';
  let failed = 0;
  if (opt.interleave || opt.blocks) {
    const jobs = [];
    for (const e of entries) {
      try { jobs.push(await prepare(e, opt)); } catch (err) { failed++; console.log(`${e.model}: ERROR ${String(err?.message ?? err).split('\n')[0]}`); }
    }
    try {
      let done = jobs;
      if (opt.blocks) {
        done = await measureBlocks(jobs, opt);
        failed += jobs.length - done.length;
      } else await measure(jobs, opt);
      for (const j of done) report(j.entry, await finish(j, opt, outDir));
    } catch (err) { failed = entries.length; console.log(`interleaved run: ERROR ${String(err?.message ?? err).split('\n')[0]}`); }
  } else {
    for (const e of entries) {
      try {
        const j = await prepare(e, opt);
        await measure([j], opt);
        report(e, await finish(j, opt, outDir));
      } catch (err) {
        failed++;
        console.log(`${e.model}: ERROR ${String(err?.message ?? err).split('\n')[0]}`);
      }
    }
  }
  if (failed === entries.length) process.exit(1);
}

main().catch((e) => { console.error(e); process.exit(1); });
