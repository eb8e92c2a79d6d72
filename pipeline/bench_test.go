package pipeline_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/internal/hugeheap"
	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/pipeline"
	"github.com/wolong-dev/wolong/report"
	"github.com/wolong-dev/wolong/simulate"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// The benchmarks of this file time what `wolong optimize MODEL --dim
// batch=8` does, stage by stage, on modelgen.Wide graphs (bench/speed.sh
// times the command itself). Per-pass benchmarks are in optimize
// (BenchmarkPasses100k).
//
// Hot spots pprof showed on the 100k-node model (optimize -O3, h100,
// --dim batch=8; 2-vCPU VM shared), CPU seconds over three rounds of work
// (about 3.1 -> 1.95 -> 1.6 -> ~1.0 s in all, the last round measured as
// the command runs, in place; wall time per stage from this benchmark,
// load ~1: import 0.26 s, infer 0.03, passes 0.40, predictions 0.24):
//   - ir.Topo from the driver's re-sort after every pass, 0.42 -> 0.11 ->
//     0.02: SortNodes checks the order in one walk and leaves a sorted
//     graph, and only after a pass that reports a rewrite (a pass that
//     reports none changed nothing; VerifyEach checks that);
//     ir.(*Node).CapturedValues, which that walk, ir.Deps, dce and the
//     simulator's memory model call for every fused node, tests a value's
//     own graph before any map or parent chain (0.09 -> 0.05, what is left
//     is reading each body value once);
//   - ir.CloneModel, Infer's copy and Optimize's, 0.46 -> 0: the commands
//     that read no earlier stage again infer and optimize in place
//     (CloneGraph itself: slabs and values by ID, about half the time);
//   - the fuse pass, 0.55 -> 0.40 -> 0.3 -> ~0.23 (BenchmarkPasses100k/
//     fuse): groups found by node ID, not pointer-keyed maps (positions
//     too, now); members moved into the fused bodies, not copied; member
//     lists sized once; newName keeps no set of every name; left: building
//     the bodies (a formal input Value and a Type clone per external input,
//     ~0.09), naming, the cycle check;
//   - simulate.Run, twice (before the first pass and after fuse),
//     ~0.5 -> ~0.33 -> ~0.24: only the 10 largest gaps kept (not all
//     sorted); the fused-kernel note without fmt; left: the cost model
//     (~0.1, a member estimate per fused-body node), zeroing the ~35 MB
//     Task list (~360 bytes per node, ~0.06), the memory model (~0.04);
//   - importer decode and link ~0.2 (nodes and outputs from slabs, op
//     types interned; what is left is first-touching the node slabs and
//     the name maps) and the load-time ir.Verify 0.1 -> ~0.03 (its tables
//     by ID: ir.idTable);
//   - cse 0.05 (node keys without a string per number) and late_cse 0
//     (Pass.Repeats: skipped when nothing changed since cse found
//     nothing); the other passes 0.005-0.04 each (dce marks by node ID);
//   - the garbage collector, ~20% of CPU, mostly on the second core: about
//     150 MB is live at the peak (the model and its fused bodies; the
//     predictor keeps one simulation). GOGC=off is slower, not faster:
//     first-touching fresh pages costs more than collecting;
//   - the kernel's page faults: with 4 KiB pages ~0.3 s of the ~1.06-1.2 s
//     wall on this VM (38k minor faults, one per page of the ~168 MB
//     resident; bench/pagefault: 11.2 us per first touch here), shown in
//     pprof as flat time where fresh memory is first written
//     (ir.(*Graph).AddNodeIn on the import's node slab,
//     memclrNoHeapPointers for large slices). Moving nodes' and values'
//     doc strings and metadata out of line (Node 192 -> 144 B, Value
//     216 -> 184 B) and sharing shapes took ~25 MB off; then
//     internal/hugeheap backed the heap with 2 MiB pages (the runtime
//     leaves THP to the kernel, whose policy here is madvise): ~2.7k
//     faults, fewer TLB misses, 1.03 -> 0.70 s, and pre-faults a few MiB
//     ahead of the heap on the second core (~0.6-0.66 s; at 1M nodes
//     ~1 s of the ~3 s the VM spends zeroing fresh memory leaves the
//     allocating thread);
//   - the two simulations' cost estimates run on up to 4 goroutines
//     (cost.Model.Nodes), ~0.1 -> ~0.06 s of wall;
//   - at 1M nodes, what grows faster than the node count is the memory
//     system: map probes that miss the cache (~1 s at 1M, 0.06 s at
//     100k, before this round). Since: the importer resolves inputs that
//     name one of the 4 preceding nodes' outputs without its name map,
//     cse finds twins through use lists (0.41 s -> below the profile's
//     resolution), tbatch groups by sorting (0.30 -> 0.09 s), fuse keeps
//     touched values by ID, newName records nothing per name, and the
//     collector is paused during the import (its collections only
//     marked). Left: the importer's name map itself (~0.35 s at 1M, one
//     insert per output) and the VM's first touch of fresh memory (1.5-3
//     s of system time for ~1.7 GB; memory a run just freed is cheap for
//     the next, so a 1M run after a pause pays most). Next: a smaller IR
//     (a fused body's formal inputs, ~17 MB at 100k; the 296-byte body
//     Attr, ~9 MB; the 360-byte simulate.Task, ~10 MB) and
//     Node.CapturedValues' walk of every fused body (~6% at 100k). Tried
//     and not kept: decoding nodes on two goroutines, a reused node-order
//     buffer, a GC started before a simulation, GOGC 50-400 (faster only
//     with RSS over 200 MB) and GOMEMLIMIT, a pre-touch lead growing with
//     the heap, an initializer cursor in the importer.

// stageModel writes modelgen.Wide(n) to a temporary file.
func stageModel(b *testing.B, n int) string {
	b.Helper()
	return stageModelOf(b, modelgen.Wide, n)
}

// stageModelOf writes build(n) to a temporary file.
func stageModelOf(b testing.TB, build func(int) *ir.Model, n int) string {
	b.Helper()
	p := filepath.Join(b.TempDir(), fmt.Sprintf("model_%d.onnx", n))
	if err := importer.WriteFile(build(n), p); err != nil {
		b.Fatal(err)
	}
	return p
}

// stageTimes runs the pipeline once on path and returns the wall time of
// each stage by name ("import", "infer", "optimize", "simulate",
// "report", "export": the optimized model written as ONNX), and of each
// pass ("pass/NAME").
func stageTimes(b testing.TB, path string, h *hw.Hardware) map[string]time.Duration {
	return stageTimesGC(b, path, h, false)
}

// stageTimesGC is stageTimes; with isolate, each stage and each pass runs
// with the collector paused after a full collection (runtime.GC) that is
// not timed, so that a stage's time is its own work (allocation and the
// first touch of fresh memory included) and not whatever share of the
// collector's marking happened to fall into it; the untimed collections
// are reported as "gc-between-stages". The passes' Elapsed already
// excludes the predictions after them; "optimize" is the driver's wall
// less the collections between passes.
func stageTimesGC(b testing.TB, path string, h *hw.Hardware, isolate bool) map[string]time.Duration {
	b.Helper()
	t := map[string]time.Duration{}
	lap := func(name string, start time.Time) { t[name] += time.Since(start) }
	var gcTime time.Duration
	collect := func() {
		if isolate {
			s := time.Now()
			runtime.GC()
			gcTime += time.Since(s)
		}
	}
	if isolate {
		defer debug.SetGCPercent(debug.SetGCPercent(-1))
		defer func() { t["gc-between-stages"] = gcTime }()
	}
	collect()
	start := time.Now()
	l, err := pipeline.Load(path, pipeline.LoadOptions{Dims: []pipeline.GivenDim{{Name: "batch", Value: 8}}})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	lap("import", start)
	collect()
	start = time.Now()
	f, err := pipeline.Infer(l, pipeline.InferOptions{DefaultDims: true, InPlace: true}) // as the command: no copies
	if err != nil {
		b.Fatal(err)
	}
	lap("infer", start)
	collect()
	var hook func(int, int, string, *ir.Model)
	if isolate {
		hook = func(int, int, string, *ir.Model) { collect() }
	}
	gcBefore := gcTime
	start = time.Now()
	o, err := pipeline.Optimize(f, pipeline.OptimizeOptions{Level: 3, HW: h, Predict: true, InPlace: true, OnPassStart: hook})
	if err != nil {
		b.Fatal(err)
	}
	lap("optimize", start)
	t["optimize"] -= gcTime - gcBefore // the collections between passes
	for _, p := range o.Result.Passes {
		t["pass/"+p.Name] += p.Elapsed
	}
	collect()
	start = time.Now()
	if _, err := pipeline.Simulate(o, pipeline.SimOptions{HW: h, Streams: 1, Mode: simulate.Inference}); err != nil {
		b.Fatal(err)
	}
	lap("simulate", start)
	collect()
	start = time.Now()
	rep := report.NewOptimize(path, h.Name, o.Result, o.Assumptions(), l.Warnings)
	if err := report.WriteJSON(io.Discard, rep); err != nil {
		b.Fatal(err)
	}
	if err := rep.WriteText(io.Discard); err != nil {
		b.Fatal(err)
	}
	lap("report", start)
	collect()
	start = time.Now()
	if _, err := pipeline.Export(o, filepath.Join(filepath.Dir(path), "exported.onnx"), importer.WriteOptions{}); err != nil {
		b.Fatal(err)
	}
	lap("export", start)
	return t
}

// BenchmarkPipeline100k runs the optimize command's pipeline on a
// 100k-node model: ns/op is the whole of it, and each stage's and each
// pass's share is a metric (ms-import, ms-pass/fuse, ...). Each stage
// alone: importer.BenchmarkImportInfer100k, optimize.BenchmarkPasses100k,
// simulate.BenchmarkSimulate100k.
func BenchmarkPipeline100k(b *testing.B) {
	h, err := hw.Preset("h100")
	if err != nil {
		b.Fatal(err)
	}
	path := stageModel(b, 100_000)
	total := map[string]time.Duration{}
	for b.Loop() {
		for k, v := range stageTimes(b, path, h) {
			total[k] += v
		}
	}
	for _, k := range sortedKeys(total) {
		b.ReportMetric(float64(total[k])/1e6/float64(b.N), "ms-"+k)
	}
}

// sortedKeys returns m's keys in order.
func sortedKeys(m map[string]time.Duration) []string {
	var names []string
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// BenchmarkDoubling runs the pipeline on 50k- and 100k-node models and
// reports, for each stage and each pass, the ratio of its time on the
// larger to the smaller (the fastest of 3 runs each): about 2 is linear,
// 4 quadratic. A metric, not a check: a timed assertion would fail on a
// loaded machine.
func BenchmarkDoubling(b *testing.B) {
	h, err := hw.Preset("h100")
	if err != nil {
		b.Fatal(err)
	}
	small, large := stageModel(b, 50_000), stageModel(b, 100_000)
	for b.Loop() {
		reportDoubling(b, h, small, large)
	}
}

// BenchmarkDoublingShapes is BenchmarkDoubling on every shape of
// modelgen.Shapes (elementwise, matmul, fanout, concat, encoder, decoder, cnn,
// rnn, heads, control), from WOLONG_DOUBLING_NODES nodes (default 50000) to
// twice that: the issue-25 bound is 2.3x for every stage and pass on
// every shape (bench/doubling.sh runs it and flags what exceeds it).
func BenchmarkDoublingShapes(b *testing.B) {
	h, err := hw.Preset("h100")
	if err != nil {
		b.Fatal(err)
	}
	n := 50_000
	if s := os.Getenv("WOLONG_DOUBLING_NODES"); s != "" {
		if n, err = strconv.Atoi(s); err != nil || n < 1 {
			b.Fatalf("WOLONG_DOUBLING_NODES=%q: want a node count", s)
		}
	}
	// The heap backed by huge pages as the command's is (cmd/process.go,
	// internal/hugeheap): without, the larger graph's stages pay more TLB
	// misses and page faults than a command does.
	if !strings.Contains(os.Getenv("GODEBUG"), "disablethp=1") {
		hugeheap.Reserve(8<<30, hugeheap.Options{})
	}
	for _, shape := range modelgen.Shapes() {
		b.Run(shape.Name, func(b *testing.B) {
			small, large := stageModelOf(b, shape.Build, n), stageModelOf(b, shape.Build, 2*n)
			for b.Loop() {
				reportDoubling(b, h, small, large)
			}
		})
	}
}

// reportDoubling reports, for each stage and pass taking at least a
// millisecond on small, the ratio of its time on large to small (the
// fastest of 3 runs each) as the metric x2-NAME. The stages run with the
// collector isolated (stageTimesGC): the ratio is the stage's own growth,
// and "x2-gc-between-stages" the collections' (each marks the live
// heap). x2-whole is the whole pipeline as a command runs it, the
// collector running where it falls (the fastest of 2 runs each): the
// figure a user sees, which the stage ratios decompose.
// WOLONG_DOUBLING_GC=run times the stages as run, collector included.
func reportDoubling(b *testing.B, h *hw.Hardware, small, large string) {
	isolate := os.Getenv("WOLONG_DOUBLING_GC") != "run"
	fastest := func(path string) map[string]time.Duration {
		best := map[string]time.Duration{}
		for range 3 {
			for k, v := range stageTimesGC(b, path, h, isolate) {
				if old, ok := best[k]; !ok || v < old {
					best[k] = v
				}
			}
		}
		return best
	}
	whole := func(path string) time.Duration {
		var best time.Duration
		for i := range 2 {
			runtime.GC()
			var sum time.Duration
			for k, v := range stageTimes(b, path, h) {
				if !strings.HasPrefix(k, "pass/") {
					sum += v
				}
			}
			if i == 0 || sum < best {
				best = sum
			}
		}
		return best
	}
	t1, t2 := fastest(small), fastest(large)
	for _, k := range sortedKeys(t1) {
		// passes that take under a millisecond say nothing about growth
		if t1[k] >= time.Millisecond {
			b.ReportMetric(float64(t2[k])/float64(t1[k]), "x2-"+k)
		}
	}
	if isolate {
		w1, w2 := whole(small), whole(large)
		b.ReportMetric(float64(w2)/float64(w1), "x2-whole")
	}
}
