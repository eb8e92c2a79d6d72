// Measures ONNX Runtime 1.30 end-to-end latency as people run it: profiling
// off, warm, many runs, median. The targets of wolong calibrate / validate
// (--ort-latency). wolong embeds this file (internal/ortbench) and runs it
// from its harness folder; bench/ort/latency.sh runs it from the repo.
//
//   node measure.mjs OUTDIR [--runs N] [--warmup W] [--max-seconds S]
//        [--threads T] [--level disabled|basic|extended|all] [--profiled]
//        [--interleave | --passes P [--retry-over PCT]] [--spec SPEC.json]
//        [--cache-probe L2KB|auto] [MODEL.onnx ...]
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
// Inputs are the deterministic ones of inputs.mjs (seeded mulberry32).
// W warm-up runs (default 20, and at least 0.2 s) are dropped; then runs
// continue until N (default 300) or S seconds (default 5) have passed, and
// at least 10. With --interleave every model's session is made
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
// With --passes P every model is measured in P passes over all of them
// (sessions kept open, profiled runs in the last) and its pass with the
// lowest median counts; with --retry-over PCT a model whose passes differ
// by more than PCT percent gets one more unprofiled pass at the end. With
// --ci-pct PCT instead, each pass drops its outlying runs (5 scaled MADs
// from its median), the runs of the fastest quarter of the passes are
// pooled (the machine's own speed; fast_passes says how many), and a
// model whose target is not known to within PCT (the pool's 95% interval
// and the spread of the pass medians at the quarter's edge; with one
// pass pooled, the gap to the next pass median) gets more
// unprofiled passes at the end (--ci-passes rounds, default 2, within
// --ci-seconds, default 30); its record says how well it is known
// (ci_pct). --pass-min-runs N (default 10): the fewest runs in a pass.
// --cache-probe (with --passes): a probe of the core's L2 between passes
// says which passes had the cache to themselves (see probeQuiet); those
// are pooled first, and a model with none pooled gets the extra passes
// as an unsettled one does. "auto" reads the L2's size from sysfs.
//
// Writes OUTDIR/<model path with / as __>.json (or the spec's "out"):
//   {"format": "wolong-ort-latency", "version": 1, "model", "ort",
//    "threads", "graph_optimization", "profiling": false, "inputs",
//    "warmup", "runs", "median_us", "p10_us", "p90_us", "min_us", "mean_us",
//    "cpu_wall_ratio_median", "steady_median_us", "steady_runs",
//    "host": {"cpu", "cores", "platform", "id"?}, "date",
//    "passes"?, "pass_medians_us"?, "retry_medians_us"?, "ci_pct"?,
//    "fast_passes"?, "cache_probe_kb"?, "pass_cache_probe"? (each pass's
//    larger probe ratio), "quiet_passes"?, "fast_quiet_passes"?,
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
import { makeInput, mulberry32 } from './inputs.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
// The harness folder holding node_modules: WOLONG_ORT_HOME when set
// (bench/ort, or the folder wolong installs in the user's cache), else this
// folder.
const home = process.env.WOLONG_ORT_HOME || here;
const ort = createRequire(path.join(home, 'package.json'))('onnxruntime-node');
const repo = process.env.WOLONG_REPO || path.resolve(here, '..', '..', '..');
const modelsDir = process.env.WOLONG_MODELS || path.resolve(repo, '..', 'shared', 'models');
const manifestPath = path.join(repo, 'testdata', 'ort', 'manifest.json');

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

// The cache probe (--cache-probe L2KB|auto): on a VM the core's private
// cache (L2) is shared with whatever the host runs on the core's other
// hardware thread, and while something does, a model whose weights fit in
// the cache alone runs up to 2x slower (its weights come from L3) though
// nothing on this VM changed; compute-bound models change by ~5%
// (docs/calibration-protocol.md, "The cache probe"). Between every two
// model passes the harness times a pointer chase over 3/4 of the L2 and
// one over 1/16 of it (at least 64 KiB, past the L1; spread over the same
// pages as the large one, so both miss the first-level TLB alike; the
// fastest of three timings: a preempted one is slower): alone on the core
// both hit the L2 and take about the same time a load; with the cache
// shared the larger misses (3.6-10x the small one on the Intel VM
// measured busy). A pass is
// quiet when the probes on either side of it are within probeQuiet of
// the small chase's time; with --ci-pct, quiet passes are pooled before
// any other. A quiet pass taken for a shared one only loses the choice
// (the fastest quarter of all passes, as without the probe).
const probeQuiet = 1.5;

// chase is a cyclic pointer chase over bytes of memory, one load per
// 64-byte line in a seeded random order (no prefetcher follows it), the
// lines spread evenly over span bytes (at least bytes): a small chase
// spread over a large one's span touches as many pages, so the two differ
// in where their lines are (L2 or beyond), not in TLB misses.
function makeChase(bytes, span = bytes) {
  const ints = 16; // per 64-byte line
  const n = Math.max(2, Math.floor(bytes / 64));
  const stride = Math.max(1, Math.floor(Math.max(span, bytes) / 64 / n)) * ints;
  const a = new Int32Array(n * stride);
  const perm = Array.from({ length: n }, (_, i) => i);
  const next = mulberry32(7);
  for (let i = n - 1; i > 0; i--) { const k = next() % (i + 1); [perm[i], perm[k]] = [perm[k], perm[i]]; }
  for (let i = 0; i < n; i++) a[perm[i] * stride] = perm[(i + 1) % n] * stride;
  return { a, n };
}

// chaseNs is the time of a load of c's chase, ns: one lap to bring the
// lines in, then laps timed.
function chaseNs(c, laps = 1) {
  const a = c.a;
  let i = 0;
  for (let k = 0; k < c.n; k++) i = a[i];
  const t0 = process.hrtime.bigint();
  for (let k = 0; k < laps * c.n; k++) i = a[i];
  const ns = Number(process.hrtime.bigint() - t0) / (laps * c.n);
  return i < 0 ? -1 : ns; // i read: the loop is not dead code
}

// l2KB reads the size of the first CPU's level-2 cache from sysfs
// (Linux), 0 when unknown.
function l2KB() {
  const dir = '/sys/devices/system/cpu/cpu0/cache';
  try {
    for (const d of fs.readdirSync(dir)) {
      if (!d.startsWith('index')) continue;
      const rd = (f) => fs.readFileSync(path.join(dir, d, f), 'utf8').trim();
      if (rd('level') !== '2' || rd('type') === 'Instruction') continue;
      const m = /^(\d+)([KMG]?)/.exec(rd('size'));
      if (m) return Number(m[1]) * ({ '': 1 / 1024, K: 1, M: 1024, G: 1048576 }[m[2]]);
    }
  } catch { /* not Linux, or no sysfs */ }
  return 0;
}

// prober times the probe: ratio() is the large chase's load time over
// the small one's, taken now. WOLONG_CACHE_PROBE_SEQ (tests only: ratios,
// comma-separated) makes it return those in turn instead, so a test can
// set which passes are quiet.
function makeProber(kb) {
  const seq = (process.env.WOLONG_CACHE_PROBE_SEQ || '').split(',').filter(Boolean).map(Number);
  if (seq.length) {
    let i = 0;
    return { kb, ratio: () => seq[i++ % seq.length] };
  }
  const big = makeChase(kb * 1024 * 0.75), small = makeChase(Math.max(kb / 16, Math.min(64, kb / 4)) * 1024, kb * 1024 * 0.75);
  for (let w = 0; w < 5; w++) { chaseNs(small); chaseNs(big); }
  return { kb, ratio: () => { const s = Math.min(chaseNs(small, 2), chaseNs(small, 2), chaseNs(small, 2)); return chaseNs(big) / s; } };
}

// steady is the median over unpreempted runs (see the header).
function steady(job, opt) {
  const clean = opt.threads === 1 ? job.times.filter((_, i) => job.ratios[i] >= 0.9) : [];
  if (clean.length * 2 < job.times.length) return { steady_median_us: median(job.times), steady_runs: job.times.length };
  return { steady_median_us: median(clean), steady_runs: clean.length };
}

// hostInfo is the machine: the CPU's model name, and on Linux its vendor,
// family, model and stepping ("AuthenticAMD 25/1/1", as wolong's
// hw.HostCPU reads them): a hypervisor can give two CPUs one name (two AMD
// EPYC generations read "AMD EPYC"), and the id tells the machine's
// preset variant apart.
function hostInfo() {
  const cpus = os.cpus();
  const h = { cpu: cpus.length ? cpus[0].model.trim() : 'unknown', cores: cpus.length, platform: `${os.platform()} ${os.arch()}` };
  try {
    const f = {};
    for (const line of fs.readFileSync('/proc/cpuinfo', 'utf8').split('\n')) {
      const i = line.indexOf(':');
      if (i < 0) continue;
      const k = line.slice(0, i).trim(), v = line.slice(i + 1).trim();
      if (['vendor_id', 'cpu family', 'model', 'stepping'].includes(k) && !(k in f)) f[k] = v;
      if (line.trim() === '' && Object.keys(f).length) break;
    }
    if (f['cpu family']) h.id = `${f.vendor_id || ''} ${f['cpu family']}/${f.model || ''}/${f.stepping || ''}`.trim();
  } catch { /* not Linux: the name alone */ }
  return h;
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
  for (const inp of entry.inputs || []) feeds[inp.name] = makeInput(ort.Tensor, next, inp);
  const job = { entry, file, feeds, times: [], ratios: [], ptimes: [], pwarm: 0, tmp: null, passes: [] };
  job.session = await makeSession(file, opt, false);
  if (opt.profiled && !entry.no_profile) {
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

async function measure(jobs, opt) {
  let t0 = Date.now();
  for (let w = 0; w < opt.warmup || Date.now() - t0 < opt.warmupMs; w++) await round(jobs, false);
  t0 = Date.now();
  for (let r = 0; r < opt.runs; r++) {
    await round(jobs, true);
    if (r + 1 >= 10 && (Date.now() - t0) / 1000 > opt.maxSeconds) break;
  }
}

// measureOne measures one model as people run it: warm-up runs, then runs
// in a loop (one pass, appended to j.passes); with profiled, its profiled
// twin's runs come after, in a loop of their own (the profiler's buffers
// do not disturb the unprofiled runs).
async function measureOne(j, opt, profiled) {
  const loop = async (session, measured, warmup, warmupMs, maxSeconds) => {
    let t0 = Date.now();
    for (let w = 0; w < warmup || Date.now() - t0 < warmupMs; w++) {
      await session.run(j.feeds);
      if (session === j.psession) j.pwarm++;
    }
    t0 = Date.now();
    for (let r = 0; r < opt.runs; r++) {
      measured(await timedRun(session, j.feeds));
      if (r + 1 >= minRuns && (Date.now() - t0) / 1000 > maxSeconds) break;
    }
  };
  // a pass ends after its share of the time and at least --pass-min-runs
  // runs (default 10): with many short passes a slow model's passes
  // together still make as many runs as a few long ones
  const minRuns = Math.max(3, opt.passMinRuns ?? 10);
  const pass = { times: [], ratios: [] };
  if (opt.prober) pass.probe = [opt.lastProbe ?? opt.prober.ratio()];
  // the first pass warms the session up; a later one only refills the
  // caches the other models' passes took (one run): with twelve passes a
  // full warm-up each would take most of the measuring time
  const [w, wms] = j.passes.length ? [Math.min(opt.warmup, 1), 0] : [opt.warmup, opt.warmupMs];
  await loop(j.session, (x) => { pass.times.push(x.us); pass.ratios.push(x.ratio); }, w, wms, opt.maxSeconds / opt.passes);
  if (opt.prober) {
    opt.lastProbe = opt.prober.ratio();
    pass.probe.push(opt.lastProbe);
    pass.quiet = Math.max(...pass.probe) <= probeQuiet;
  }
  j.passes.push(pass);
  // the profiled twin only splits a run's time among its kernels (a
  // trimmed mean per node): a sixth of the budget (and at least
  // --pass-min-runs runs) gives it enough
  if (profiled && j.psession) await loop(j.psession, (x) => j.ptimes.push(x.us), Math.min(opt.warmup, 3), opt.warmupMs / 10, opt.maxSeconds / 6);
}

// choosePass makes the pass with the lowest median the job's times: a
// slow spell of the machine (another process on the other core thrashing
// the memory bus, a frequency change) seldom falls on every pass. With
// --ci-pct, the times are instead the runs of the fastest quarter of its
// passes (by median, outliers dropped), pooled (fastPasses): interference
// only slows a run down, so the fast passes are the machine's own speed;
// a quarter, not the one fastest, because a VM's speed comes in levels
// and a rare faster spell (one pass in twelve) would move the target by
// its size, and because the least of twelve short passes' medians sits
// below their common value. The pool also has more runs than one pass.
function choosePass(j, passes, ci) {
  let best = j.passes[0];
  for (const p of j.passes) if (median(p.times) < median(best.times)) best = p;
  if (ci) {
    const fast = fastPasses(j);
    j.times = fast.flatMap((p) => { const k = keepMask(p.times); return p.times.filter((_, i) => k[i]); });
    j.ratios = fast.flatMap((p) => { const k = keepMask(p.times); return p.ratios.filter((_, i) => k[i]); });
    j.fastPasses = fast.length;
  } else {
    j.times = best.times;
    j.ratios = best.ratios;
  }
  if (ci) j.ciPct = targetCIPct(j);
  j.passMedians = j.passes.slice(0, passes).map((p) => median(p.times));
  j.retryMedians = j.passes.slice(passes).map((p) => median(p.times));
}

// robust drops a pass's outlying runs: farther than 5 scaled median
// absolute deviations from its median (a preempted run, a page-fault
// storm), keeping at least half of them.
function keepMask(times) {
  const m = median(times);
  const mad = 1.4826 * median(times.map((x) => Math.abs(x - m)));
  const keep = times.map((x) => !(mad > 0) || Math.abs(x - m) <= 5 * mad);
  return keep.filter(Boolean).length * 2 >= times.length ? keep : times.map(() => true);
}
const robust = (times) => { const k = keepMask(times); return times.filter((_, i) => k[i]); };

// medianCIPct is the half-width of the 95% confidence interval of the
// median of times (distribution-free: the order statistics n/2 +-
// 0.98 sqrt(n)), % of the median.
function medianCIPct(times) {
  const s = [...times].sort((a, b) => a - b);
  const n = s.length;
  // too few runs for order statistics (a slow model's short pass): half
  // their range
  if (n < 2) return 100;
  if (n < 5) return (100 * (s[n - 1] - s[0])) / 2 / median(s);
  const lo = Math.max(0, Math.floor(n / 2 - 0.98 * Math.sqrt(n)));
  const hi = Math.min(n - 1, Math.ceil(n / 2 + 0.98 * Math.sqrt(n)));
  return (100 * (s[hi] - s[lo])) / 2 / median(s);
}

// targetCIPct is how well a job's target (the median of its fastest
// quarter of passes, pooled) is known, %: the larger of the pool's 95%
// interval and how far apart the pass medians next to the quarter's edge
// are (half the gap between the pass medians on either side of the k-th
// lowest, of k pooled: where the passes agree, the target does not hang
// on which of them fell in the quarter). With one pass pooled, the gap to
// the next-lowest pass median (a slow spell the lowest pass escaped and
// the next did not leaves the lowest unconfirmed).
function targetCIPct(j) {
  const fast = fastPasses(j);
  // with the cache probe, the quiet passes' medians when enough are
  const quiet = j.passes.filter((p) => p.quiet !== false);
  const meds = (quiet.length >= fast.length ? quiet : j.passes).map((p) => median(robust(p.times))).sort((a, b) => a - b);
  const pool = fast.flatMap((p) => robust(p.times));
  const k = fast.length;
  const edge = k >= 2
    ? (50 * (meds[Math.min(k, meds.length - 1)] - meds[k - 2])) / meds[k - 1]
    : meds.length > 1 ? 100 * (meds[1] / meds[0] - 1) : 0;
  return Math.max(medianCIPct(pool), edge);
}

// fastPasses are the fastest quarter of a job's passes (at least one), by
// median with outliers dropped: the runs that caught the machine at its
// own speed.
// With the cache probe, quiet passes come first (the fastest of them),
// then the others.
function fastPasses(j) {
  const meds = j.passes.map((p) => median(robust(p.times)));
  const k = Math.max(1, Math.round(j.passes.length / 4));
  const rank = (i) => (j.passes[i].quiet === false ? 1 : 0);
  const order = meds.map((m, i) => [m, i]).sort((a, b) => rank(a[1]) - rank(b[1]) || a[0] - b[0]).slice(0, k).map((x) => x[1]).sort((a, b) => a - b);
  return order.map((i) => j.passes[i]);
}

// unsettled says whether a job needs another pass: its target is not
// known to within PCT, or (with the cache probe) none of its pooled passes
// was quiet: the machine's own speed was not seen.
function unsettled(j, pct) {
  return targetCIPct(j) > pct || (j.passes[0].quiet !== undefined && !fastPasses(j).some((p) => p.quiet));
}

// spreadPct is how much a job's pass medians differ: (slowest / fastest
// - 1) x 100.
function spreadPct(j) {
  const m = j.passes.map((p) => median(p.times));
  return 100 * (Math.max(...m) / Math.min(...m) - 1);
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
  // warm-up runs are dropped
  const warm = new Set(Array.from({ length: Math.min(job.pwarm, runs.length - 1) }, (_, i) => i));
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
    r.durs.push(e.dur + (Number.isInteger(e.dur) ? 0.5 : 0));
  }
  return { perRun: runs.length ? count / runs.length : 0, nodes: [...byNode.entries()].sort((a, b) => a[1].ts - b[1].ts) };
}

function writeProfile(file, rec, nodes) {
  const out = [{
    cat: 'wolong', name: 'wolong_profile', ph: 'M', pid: 0, tid: 0, ts: 0,
    args: {
      model: rec.model, ort: rec.ort, threads: rec.threads, graph_optimization: rec.graph_optimization,
      runs: rec.runs, warmup: rec.warmup, time: 'wall time, profiled session (after the unprofiled runs, or alternating with them when interleaved); node times: trimmed mean',
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

// collect ends a measured job: reads its profile and releases its
// sessions.
async function collect(job) {
  if (job.psession) {
    job.profile = profiledNodes(job);
    await job.psession.release();
    fs.rmSync(job.tmp, { recursive: true, force: true });
  }
  await job.session.release();
}

// write writes a collected job's latency record (and profile).
function write(job, opt, outDir) {
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
    interleaved: opt.interleave,
    ...(job.passMedians && job.passMedians.length > 1 ? { passes: job.passMedians.length, pass_medians_us: job.passMedians } : {}),
    ...(job.retryMedians && job.retryMedians.length ? { retry_medians_us: job.retryMedians } : {}),
    ...(job.ciPct !== undefined ? { ci_pct: job.ciPct } : {}),
    ...(job.fastPasses !== undefined ? { fast_passes: job.fastPasses } : {}),
    ...(opt.prober ? {
      cache_probe_kb: opt.prober.kb,
      pass_cache_probe: job.passes.map((p) => Number(Math.max(...p.probe).toFixed(3))),
      quiet_passes: job.passes.filter((p) => p.quiet).length,
      ...(job.fastPasses !== undefined ? { fast_quiet_passes: fastPasses(job).filter((p) => p.quiet).length } : {}),
    } : {}),
    host: hostInfo(), date: new Date().toISOString(),
  };
  const out = job.entry.out
    ? (path.isAbsolute(job.entry.out) ? job.entry.out : path.join(outDir, job.entry.out))
    : path.join(outDir, job.entry.model.replace(/^\/+/, '').replaceAll('/', '__').replace(/\.onnx$/, '.json'));
  if (job.profile) {
    rec.profiled_median_us = median(job.ptimes);
    rec.profiled_node_events = job.profile.perRun;
    writeProfile(out.replace(/\.json$/, '') + '.profile.json', rec, job.profile.nodes);
  }
  fs.writeFileSync(out, JSON.stringify(rec, null, 1) + '\n');
  return { out, rec };
}

// report prints one line per model measured (raw, before drift
// correction): the progress a caller shows.
function report(j) {
  const p = j.ptimes.length ? `, profiled ${(median(j.ptimes) / 1000).toFixed(4)} ms` : '';
  console.log(`${j.entry.model}: ${(median(j.times) / 1000).toFixed(4)} ms median over ${j.times.length} runs (p10 ${(quantile(j.times, 0.1) / 1000).toFixed(4)}, p90 ${(quantile(j.times, 0.9) / 1000).toFixed(4)})${p}`);
}

const usage = 'usage: node measure.mjs OUTDIR [--runs N] [--warmup W] [--max-seconds S] [--threads T] [--level L] [--profiled] [--warmup-ms MS] [--interleave | --passes P [--retry-over PCT | --ci-pct PCT]] [--spec SPEC.json] [--cache-probe L2KB|auto] [MODEL.onnx ...]';

async function main() {
  const argv = process.argv.slice(2);
  const opt = { runs: 300, warmup: 20, warmupMs: 200, maxSeconds: 5, threads: 1, level: 'disabled', profiled: false, interleave: false, passes: 1 };
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
    else if (a === '--warmup-ms') opt.warmupMs = Number(argv[++i]);
    else if (a === '--passes') opt.passes = Math.max(1, Number(argv[++i]));
    else if (a === '--retry-over') opt.retryOver = Number(argv[++i]);
    else if (a === '--ci-pct') opt.ciPct = Number(argv[++i]);
    else if (a === '--ci-passes') opt.ciPasses = Number(argv[++i]);
    else if (a === '--ci-seconds') opt.ciSeconds = Number(argv[++i]);
    else if (a === '--pass-min-runs') opt.passMinRuns = Number(argv[++i]);
    else if (a === '--spec') spec = argv[++i];
    else if (a === '--cache-probe') { const v = argv[++i]; opt.cacheProbeKB = v === 'auto' ? l2KB() : Number(v); }
    else if (a === '-h' || a === '--help') { console.log(usage); process.exit(0); }
    // An unknown flag is a usage error, never an output folder or a model:
    // a folder named "--help" once collected a run's records.
    else if (a.startsWith('-')) { console.error(`measure.mjs: unknown flag ${a}\n${usage}`); process.exit(2); }
    else if (outDir === null) outDir = a;
    else models.push(a);
  }
  if (!outDir) {
    console.error(usage);
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
  // the probe only with passes (it sorts passes); 0 KB: no L2 known
  if (opt.cacheProbeKB > 0 && opt.passes > 1 && !opt.interleave) opt.prober = makeProber(opt.cacheProbeKB);
  ort.env.logLevel = 'error';
  let failed = 0;
  const fail = (e, err) => { failed++; console.log(`${e.model}: ERROR ${String(err?.message ?? err).split('\n')[0]}`); };
  if (opt.interleave) {
    const jobs = [];
    for (const e of entries) {
      try { jobs.push(await prepare(e, opt)); } catch (err) { fail(e, err); }
    }
    try {
      await measure(jobs, opt);
      for (const j of jobs) { await collect(j); report(j); write(j, opt, outDir); }
    } catch (err) { failed = entries.length; console.log(`interleaved run: ERROR ${String(err?.message ?? err).split('\n')[0]}`); }
  } else {
    // one model at a time, as people run it; with several passes, every
    // model's session stays open and the passes go over all the models in
    // turn (the profiled runs in the last), and the pass with the lowest
    // median counts
    // (with --retry-over, a model whose passes differ by more than that
    // many percent gets one more, unprofiled pass after the others: the
    // lowest median of all its passes counts)
    const live = [];
    const finish = async (j) => { choosePass(j, opt.passes, opt.ciPct > 0 ? opt.ciPct : 0); await collect(j); report(j); write(j, opt, outDir); };
    const retry = [];
    for (let p = 0; p < opt.passes; p++) {
      const last = p === opt.passes - 1;
      for (const [i, e] of entries.entries()) {
        try {
          if (p === 0) live[i] = await prepare(e, opt);
          const j = live[i];
          if (!j) continue;
          await measureOne(j, opt, last);
          if (!last) console.log(`${e.model}: pass ${p + 1} of ${opt.passes}: ${(median(j.passes[p].times) / 1000).toFixed(4)} ms median over ${j.passes[p].times.length} runs`);
          if (last && opt.ciPct > 0 && opt.passes > 1 && unsettled(j, opt.ciPct)) retry.push(i);
          else if (last && opt.retryOver > 0 && opt.passes > 1 && spreadPct(j) > opt.retryOver) retry.push(i);
          else if (last) await finish(j);
        } catch (err) {
          if (live[i]) { live[i].session.release().catch(() => {}); live[i] = null; }
          fail(e, err);
        }
      }
    }
    // with --ci-pct: rounds of one more unprofiled pass over the models
    // whose target is not yet known to within PCT (at most --ci-passes
    // rounds, default 2, and --ci-seconds of them, default 30); a model
    // still outside is written with its interval (ci_pct) for the caller
    // to report
    if (opt.ciPct > 0) {
      const t0 = Date.now();
      let todo = retry.splice(0);
      for (let round = 0; round < (opt.ciPasses ?? 2) && todo.length; round++) {
        const next = [];
        for (const i of todo) {
          if ((Date.now() - t0) / 1000 > (opt.ciSeconds ?? 30)) { retry.push(i); continue; }
          try {
            await measureOne(live[i], opt, false);
            if (unsettled(live[i], opt.ciPct)) next.push(i);
            else await finish(live[i]);
          } catch (err) {
            live[i].session.release().catch(() => {});
            fail(entries[i], err);
          }
        }
        todo = next;
      }
      retry.push(...todo);
    }
    for (const i of retry) {
      try {
        if (!(opt.ciPct > 0)) await measureOne(live[i], opt, false);
        await finish(live[i]);
      } catch (err) {
        live[i].session.release().catch(() => {});
        fail(entries[i], err);
      }
    }
  }
  if (failed === entries.length) process.exit(1);
}

main().catch((e) => { console.error(e); process.exit(1); });
