package llm

import (
	"errors"
	"github.com/wolong-dev/wolong/simulate/hw"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/cluster"
)

// linCost costs an iteration as 1 ms plus 10 us per batched token.
type linCost struct{ tokens []int }

func (l *linCost) iteration(m *iterMix) iterTime {
	l.tokens = append(l.tokens, m.tokens())
	return iterTime{ComputeS: 1e-3 + 1e-5*float64(m.tokens())}
}

func approx(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// One request of 100 prompt tokens with a budget of 64 tokens per
// iteration: two prefill chunks (its first token at the end of the
// second), then one decode per further token.
func TestScheduleOneRequest(t *testing.T) {
	cost := &linCost{}
	cfg := schedConfig{MaxSeqs: 4, MaxBatchedTokens: 64, ChunkedPrefill: true, BlockSize: 16, KVBlocks: 100}
	r, err := simulateSchedule([]serveRequest{{Prompt: 100, Output: 10}}, cfg, cost)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{64, 36, 1, 1, 1, 1, 1, 1, 1, 1, 1}; !reflect.DeepEqual(cost.tokens, want) {
		t.Errorf("iterations' tokens %v, want %v", cost.tokens, want)
	}
	q := r.Reqs[0]
	if ttft := 2e-3 + 1e-5*100; !approx(q.FirstS, ttft) || !approx(q.EndS, ttft+9*(1e-3+1e-5)) {
		t.Errorf("first token %g s, end %g s", q.FirstS, q.EndS)
	}
}

// Blocks are conserved, every request finishes with its tokens, and the
// two preemption modes and the no-evict reservation behave as named.
func TestSchedulePreemption(t *testing.T) {
	reqs := generateWorkload(genSpec{N: 200, Rate: math.Inf(1), Prompt: 200, Output: 300, Dist: LengthUniform, Seed: 3})
	for _, c := range []struct {
		name    string
		cfg     schedConfig
		preempt bool
	}{
		{"recompute", schedConfig{MaxSeqs: 64, MaxBatchedTokens: 512, ChunkedPrefill: true, BlockSize: 16, KVBlocks: 400, Preemption: PreemptRecompute}, true},
		{"swap", schedConfig{MaxSeqs: 64, MaxBatchedTokens: 512, ChunkedPrefill: true, BlockSize: 16, KVBlocks: 400, Preemption: PreemptSwap, SwapGBs: 10, SwapBytesPerBlock: 1e6}, true},
		{"no-evict", schedConfig{MaxSeqs: 64, MaxBatchedTokens: 512, ChunkedPrefill: true, BlockSize: 16, KVBlocks: 400, ReserveFull: true}, false},
		{"unchunked", schedConfig{MaxSeqs: 64, MaxBatchedTokens: 1024, BlockSize: 16, KVBlocks: 400}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := make([]reqTiming, len(reqs))
			s, _ := newScheduler(reqs, out, make([]float64, len(reqs)), c.cfg, &linCost{})
			for i := range reqs {
				if err := s.push(i); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.drain(); err != nil {
				t.Fatal(err)
			}
			res := s.result()
			if s.free != c.cfg.KVBlocks {
				t.Errorf("%d of %d blocks free at the end", s.free, c.cfg.KVBlocks)
			}
			for i, o := range out {
				if o.FirstS <= 0 || o.EndS < o.FirstS || o.Output != reqs[i].Output {
					t.Fatalf("request %d: %+v", i, o)
				}
			}
			if (res.Preemptions > 0) != c.preempt || (c.cfg.Preemption == PreemptSwap) != (res.Swaps > 0) || (res.Parts.SwapS > 0) != (res.Swaps > 0) {
				t.Errorf("%d preemptions, %d swaps (%g s)", res.Preemptions, res.Swaps, res.Parts.SwapS)
			}
			if res.KVUtilPeak > 1 || res.KVUtilMean <= 0 {
				t.Errorf("kv use mean %g, peak %g", res.KVUtilMean, res.KVUtilPeak)
			}
		})
	}
}

// A shared prefix is prefilled once: later requests of its group skip
// its whole blocks.
func TestSchedulePrefixCaching(t *testing.T) {
	reqs := generateWorkload(genSpec{N: 50, Rate: 10, Prompt: 1000, Output: 20, Seed: 1, PrefixTokens: 800})
	run := func(on bool) (*schedResult, int) {
		c := &linCost{}
		r, err := simulateSchedule(reqs, schedConfig{MaxSeqs: 16, MaxBatchedTokens: 2048, ChunkedPrefill: true, BlockSize: 16, KVBlocks: 5000, PrefixCaching: on}, c)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, x := range c.tokens {
			n += x
		}
		return r, n
	}
	off, nOff := run(false)
	on, nOn := run(true)
	if on.PrefixHitTokens < 40*800 || nOn >= nOff-40*700 || off.PrefixHitTokens != 0 {
		t.Errorf("prefix hits %d tokens; batched tokens %d with caching, %d without", on.PrefixHitTokens, nOn, nOff)
	}
}

func serveCluster(t testing.TB, gpu string, machines, per int) *cluster.Cluster {
	t.Helper()
	g, err := hw.Resolve(gpu)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := cluster.NetworkPreset("ib-ndr")
	c, err := cluster.New(machines, per, g, n)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Under a Poisson load below capacity the time to first token is about
// one prompt's prefill; it grows with the rate, and past capacity the
// queue makes it grow without bound (the offline run's TTFT is the
// longest). Runs are deterministic in the seed.
func TestServeLoadLatency(t *testing.T) {
	l8, _ := TransformerPreset("llama3-8b")
	c := serveCluster(t, "h100", 1, 1)
	run := func(rate float64, seed uint64) *RequestStats {
		r, err := SimulateServe(l8, c, ServeOptions{Prompt: 512, Output: 128, DType: ir.Float8E4M3FN, Load: &ServeLoad{Requests: 400, Rate: rate, Seed: seed, SLO: SLO{TTFTMs: 500, TPOTMs: 50}}})
		if err != nil {
			t.Fatal(err)
		}
		return r.Requests
	}
	prev := 0.0
	for _, rate := range []float64{1, 10, 40, 0} {
		s := run(rate, 1)
		t.Logf("rate %g: TTFT %.1f ms (p99 %.1f), TPOT %.2f ms, %.0f output tok/s, goodput %.2f req/s (%.0f%%)", rate, s.TTFT.MeanMs, s.TTFT.P99Ms, s.TPOT.MeanMs, s.OutputTokensPerS, s.GoodputRPS, 100*s.SLOAttainment)
		if s.TTFT.MeanMs < prev {
			t.Errorf("rate %g: TTFT %.1f ms below the lower rate's %.1f", rate, s.TTFT.MeanMs, prev)
		}
		prev = s.TTFT.MeanMs
		if rate == 1 && (s.TTFT.MeanMs > 60 || s.SLOAttainment < 0.99 || s.TTFT.P50Ms > s.TTFT.P99Ms) {
			t.Errorf("rate 1: TTFT %.1f ms (p50 %.1f, p99 %.1f), SLO attainment %.2f: want one prefill, every request within", s.TTFT.MeanMs, s.TTFT.P50Ms, s.TTFT.P99Ms, s.SLOAttainment)
		}
	}
	if a, b := run(10, 7), run(10, 7); !reflect.DeepEqual(a, b) {
		t.Errorf("same seed, different runs")
	}
}

// Replicas behind a router, pipeline stages as virtual engines and
// disaggregated pools run the whole workload; two replicas serve about
// twice one's offline throughput.
func TestServeDeployments(t *testing.T) {
	l8, _ := TransformerPreset("llama3-8b")
	c2 := serveCluster(t, "h100", 1, 2)
	base := ServeOptions{Prompt: 1024, Output: 256, DType: ir.Float8E4M3FN}
	run := func(c *cluster.Cluster, l ServeLoad) *ServeResult {
		t.Helper()
		o := base
		o.Load = &l
		r, err := SimulateServe(l8, c, o)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	one := run(serveCluster(t, "h100", 1, 1), ServeLoad{Requests: 2000})
	two := run(c2, ServeLoad{Requests: 4000})
	if x := two.Requests.OutputTokensPerS / one.Requests.OutputTokensPerS; x < 1.8 || x > 2.1 || two.Requests.Replicas != 2 {
		t.Errorf("2 replicas: %.2fx one's throughput", x)
	}
	ll := run(c2, ServeLoad{Requests: 1000, Rate: 20, Router: RouteLeastLoaded})
	rr := run(c2, ServeLoad{Requests: 1000, Rate: 20})
	pp := run(c2, ServeLoad{Requests: 1000, Rate: 20, PP: 2})
	dis := run(c2, ServeLoad{Requests: 1000, Rate: 20, DisaggPrefill: 1, DisaggDecode: 1})
	for name, r := range map[string]*ServeResult{"least-loaded": ll, "round-robin": rr, "pp 2": pp, "disagg 1:1": dis} {
		s := r.Requests
		t.Logf("%s: TTFT %.1f ms, TPOT %.2f ms, %.0f tok/s, engines %d", name, s.TTFT.MeanMs, s.TPOT.MeanMs, s.OutputTokensPerS, s.Engines)
		if s.TTFT.MeanMs <= 0 || s.TPOT.MeanMs <= 0 || math.Abs(s.RequestsPerS/20-1) > 0.2 {
			t.Errorf("%s: TTFT %.1f ms, TPOT %.2f ms, %.1f requests/s at a rate of 20", name, s.TTFT.MeanMs, s.TPOT.MeanMs, s.RequestsPerS)
		}
	}
	if pp.Requests.Engines != 2 || dis.Requests.Engines != 2 || dis.Requests.Disagg != "1:1" {
		t.Errorf("engines: pp %d, disagg %d (%q)", pp.Requests.Engines, dis.Requests.Engines, dis.Requests.Disagg)
	}
}

// A layout that does not fit says which part overflows and what would
// fit; impossible values are errors.
func TestServeLoadErrors(t *testing.T) {
	l405, _ := TransformerPreset("llama3-405b")
	c := serveCluster(t, "h100", 1, 8)
	_, err := SimulateServe(l405, c, ServeOptions{TP: 1, Load: &ServeLoad{Requests: 10}})
	var nf *NotFitError
	if !errors.As(err, &nf) || !strings.Contains(err.Error(), "weights") || !strings.Contains(err.Error(), "would fit") || nf.Memory.Fits {
		t.Errorf("405B bf16 on one H100: %v", err)
	}
	if _, err := SimulateServe(l405, c, ServeOptions{TP: 8, DType: ir.Float4E2M1, Load: &ServeLoad{Requests: 10}}); err == nil || !strings.Contains(err.Error(), "fp4") {
		t.Errorf("fp4 on h100: %v", err)
	}
	l8, _ := TransformerPreset("llama3-8b")
	for _, l := range []ServeLoad{{Requests: -1}, {Rate: math.NaN()}, {KVFraction: 2}, {DisaggPrefill: 1}, {DisaggPrefill: 5, DisaggDecode: 5}, {Replicas: 9}, {PP: 64}, {Preemption: "drop"}} {
		l := l
		if _, err := SimulateServe(l8, c, ServeOptions{Load: &l}); err == nil {
			t.Errorf("%+v: no error", l)
		}
	}
}

func TestReadWorkload(t *testing.T) {
	jsonl := `{"arrival_s":0.5,"prompt":128,"output":64}
{"timestamp":250,"input_tokens":10,"output_tokens":5,"prefix_group":1,"prefix_tokens":4}
`
	got, err := ReadWorkload(strings.NewReader(jsonl), "w.jsonl")
	if err != nil || len(got) != 2 || got[1].ArrivalS != 0.25 || got[1].Prompt != 10 || got[0].Output != 64 {
		t.Fatalf("%+v, %v", got, err)
	}
	csv := "arrival_s,prompt,output\n0,100,10\n1.5,200,20\n"
	got, err = ReadWorkload(strings.NewReader(csv), "w.csv")
	if err != nil || len(got) != 2 || got[1].Prompt != 200 || got[1].ArrivalS != 1.5 {
		t.Fatalf("%+v, %v", got, err)
	}
	if rs := workloadRequests([]WorkloadRequest{{ArrivalS: 2, Prompt: 1, Output: 1}, {ArrivalS: 1, Prompt: 2, Output: 1}}); rs[0].Prompt != 2 {
		t.Errorf("not sorted by arrival: %+v", rs)
	}
	for _, bad := range []string{"", "{bad json}\n", `{"arrival_s":-1,"prompt":1,"output":1}`, `{"prompt":0,"output":1}`, "a,b\n1,2\n", "arrival_s,prompt,output\n0,1.5,2\n", "arrival_s,prompt,output\n", `{"prompt":10,"output":1,"prefix_tokens":20}`} {
		if _, err := ReadWorkload(strings.NewReader(bad), "bad"); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// The serving search ranks layouts by goodput per GPU under the SLO,
// runs the winner on the whole cluster and writes its launch flags.
func TestSearchServe(t *testing.T) {
	l8, _ := TransformerPreset("llama3-8b")
	c := serveCluster(t, "h100", 1, 8)
	r, err := SearchServe(l8, c, ServeOptions{Prompt: 1024, Output: 128, DType: ir.Float8E4M3FN, Load: &ServeLoad{Requests: 2000, Rate: 60, SLO: SLO{TTFTMs: 300, TPOTMs: 30}}})
	if err != nil {
		t.Fatal(err)
	}
	s := r.Search
	if s == nil || s.Evaluated < 10 || s.Fitting < 1 || len(s.Ranked) == 0 || r.Requests.Requests != 2000 {
		t.Fatalf("search %+v", s)
	}
	for i := 1; i < len(s.Ranked); i++ {
		if s.Ranked[i].GoodputPerGPU > 1.01*s.Ranked[0].GoodputPerGPU {
			t.Errorf("rank %d has more goodput (%.0f) than the best (%.0f)", i, s.Ranked[i].GoodputPerGPU, s.Ranked[0].GoodputPerGPU)
		}
	}
	best := s.Ranked[0]
	if r.TP != best.TP || !strings.Contains(s.VLLM, "--tensor-parallel-size") || !strings.Contains(s.TRTLLM, "--max_num_tokens") {
		t.Errorf("best %s; run tp %d; vllm %q; trtllm %q", best.Layout(), r.TP, s.VLLM, s.TRTLLM)
	}
	t.Logf("%s: %.0f goodput tok/s/GPU; %s", best.Layout(), best.GoodputPerGPU, s.VLLM)
	if _, err := SearchServe(l8, c, ServeOptions{Load: &ServeLoad{Rate: 10}}); err == nil {
		t.Error("a search without an SLO: no error")
	}
}
