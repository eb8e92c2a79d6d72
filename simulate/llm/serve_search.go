package llm

// This file implements the search over serving layouts (`profile --serve
// --strategy auto --slo ...`): tensor and pipeline parallelism per
// replica, max batched tokens per iteration, and disaggregated prefill :
// decode splits, for the most goodput per GPU under the SLO at the given
// arrival rate. Each candidate is simulated as one unit of the cluster
// (one replica, or the smallest P:D group) at its share of the rate; the
// replicas of a cluster behind a round-robin router serve the same per
// GPU. The winner is then simulated on the whole cluster, and its launch
// flags for vLLM and TensorRT-LLM are written out.

import (
	"fmt"
	"sort"
	"time"

	"github.com/wolong-dev/wolong/simulate/cluster"
)

// ServeCandidate is one layout the search simulated.
type ServeCandidate struct {
	TP               int     `json:"tp"`
	PP               int     `json:"pp"`
	MaxBatchedTokens int     `json:"max_batched_tokens"`
	Disagg           string  `json:"disagg,omitempty"`
	GoodputPerGPU    float64 `json:"goodput_tokens_per_s_per_gpu"`
	SLOAttainment    float64 `json:"slo_attainment"`
	TTFTP99Ms        float64 `json:"ttft_p99_ms"`
	TPOTP99Ms        float64 `json:"tpot_p99_ms"`
	Fits             bool    `json:"fits"`
	Why              string  `json:"why,omitempty"`
}

// Layout names the candidate.
func (c ServeCandidate) Layout() string {
	s := fmt.Sprintf("tp %d x pp %d, %d batched tokens", c.TP, c.PP, c.MaxBatchedTokens)
	if c.Disagg != "" {
		s += ", disaggregated " + c.Disagg
	}
	return s
}

// ServeSearch is what the search did and chose.
type ServeSearch struct {
	Evaluated  int              `json:"evaluated"`
	Fitting    int              `json:"fitting"`
	Ranked     []ServeCandidate `json:"ranked"`
	ElapsedS   float64          `json:"elapsed_s"`
	VLLM       string           `json:"vllm_launch"`
	TRTLLM     string           `json:"trtllm_launch"`
	UnitGPUs   int              `json:"unit_gpus"`
	UnitRateRP float64          `json:"unit_rate_rps"`
}

// searchRequests is the requests each candidate unit runs.
const searchRequests = 600

// SearchServe searches serving layouts of t on c for o's load (which must
// have a rate and an SLO): the best runs on the whole cluster and carries
// the search in its Search field.
func SearchServe(t *Transformer, c *cluster.Cluster, o ServeOptions) (*ServeResult, error) {
	if o.Load == nil || o.Load.Rate <= 0 || (o.Load.SLO.TTFTMs <= 0 && o.Load.SLO.TPOTMs <= 0) {
		return nil, fmt.Errorf("a serving search needs an arrival rate and an SLO (goodput is measured against them)")
	}
	start := time.Now()
	gpus := c.GPUs()
	var cands []ServeCandidate
	for _, tp := range []int{1, 2, 4, 8} {
		if tp > c.GPUsPerMachine || t.checkLayout(LLMOptions{TP: tp, PP: 1, DP: 1, CP: 1, EP: 1, VirtualStages: 1}) != nil {
			continue
		}
		for _, pp := range []int{1, 2, 4} {
			if tp*pp > gpus || gpus%(tp*pp) != 0 || pp > t.Layers {
				continue
			}
			for _, mbt := range []int{2048, 8192, 16384} {
				cands = append(cands, ServeCandidate{TP: tp, PP: pp, MaxBatchedTokens: mbt})
				for _, pd := range [][2]int{{1, 1}, {1, 3}, {3, 1}} {
					if pp == 1 && (pd[0]+pd[1])*tp <= gpus && gpus%((pd[0]+pd[1])*tp) == 0 {
						cands = append(cands, ServeCandidate{TP: tp, PP: pp, MaxBatchedTokens: mbt, Disagg: fmt.Sprintf("%d:%d", pd[0], pd[1])})
					}
				}
			}
		}
	}
	s := &ServeSearch{}
	for i := range cands {
		s.Evaluated++
		evalCandidate(t, c, o, &cands[i])
		if cands[i].Fits {
			s.Fitting++
		}
	}
	slo := o.Load.SLO
	headroom := func(c ServeCandidate) float64 { // the larger p99 / objective ratio
		h := 0.0
		if slo.TTFTMs > 0 {
			h = c.TTFTP99Ms / slo.TTFTMs
		}
		if slo.TPOTMs > 0 {
			h = max(h, c.TPOTP99Ms/slo.TPOTMs)
		}
		return h
	}
	sort.SliceStable(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		if a.Fits != b.Fits {
			return a.Fits
		}
		// within 1% of goodput (the load is met by both): the one further
		// inside the SLO
		if d := a.GoodputPerGPU - b.GoodputPerGPU; d > 0.01*b.GoodputPerGPU || -d > 0.01*a.GoodputPerGPU {
			return d > 0
		}
		return headroom(a) < headroom(b)
	})
	if s.Fitting == 0 {
		return nil, fmt.Errorf("no serving layout of the %d GPUs fits (%s)", gpus, cands[0].Why)
	}
	best := cands[0]
	s.Ranked = cands[:min(len(cands), 8)]
	bo := unitOptions(o, best, gpus)
	bo.Load.Requests = o.Load.Requests
	if bo.Load.Requests == 0 {
		// the units' requests over the cluster, bounded (the search's time)
		bo.Load.Requests = min(20000, searchRequests*max(1, gpus/(best.TP*best.PP)))
	}
	bo.Load.Rate = o.Load.Rate
	bo.Load.DisaggPrefill, bo.Load.DisaggDecode = 0, 0
	if best.Disagg != "" {
		var p, d int
		fmt.Sscanf(best.Disagg, "%d:%d", &p, &d)
		k := gpus / ((p + d) * best.TP)
		bo.Load.DisaggPrefill, bo.Load.DisaggDecode = p*k, d*k
	}
	r, err := SimulateServe(t, c, bo)
	if err != nil {
		return nil, err
	}
	s.VLLM, s.TRTLLM = launchFlags(t, r, best)
	s.ElapsedS = time.Since(start).Seconds()
	r.Search = s
	return r, nil
}

// unitOptions is o for candidate c.
func unitOptions(o ServeOptions, c ServeCandidate, gpus int) ServeOptions {
	l := *o.Load
	l.PP, l.MaxBatchedTokens, l.Replicas, l.Workload = c.PP, c.MaxBatchedTokens, 0, nil
	l.KeepIterations = false
	o.TP = c.TP
	o.Load = &l
	return o
}

// evalCandidate simulates c's smallest unit at its share of the rate.
func evalCandidate(t *Transformer, c *cluster.Cluster, o ServeOptions, cand *ServeCandidate) {
	gpus := c.GPUs()
	uo := unitOptions(o, *cand, gpus)
	unit := cand.TP * cand.PP
	if cand.Disagg != "" {
		var p, d int
		fmt.Sscanf(cand.Disagg, "%d:%d", &p, &d)
		uo.Load.DisaggPrefill, uo.Load.DisaggDecode = p, d
		unit = (p + d) * cand.TP
	}
	uc, err := cluster.New(1, unit, c.GPU, c.Net)
	if err != nil {
		cand.Why = err.Error()
		return
	}
	uc.NICsPerMachine, uc.Intra = c.NICsPerMachine, c.Intra
	uo.Load.Rate = o.Load.Rate * float64(unit) / float64(gpus)
	uo.Load.Requests = searchRequests
	r, err := SimulateServe(t, uc, uo)
	if err != nil {
		cand.Why = err.Error()
		return
	}
	s := r.Requests
	cand.Fits = true
	cand.GoodputPerGPU, cand.SLOAttainment = s.GoodputTokensPerSGPU, s.SLOAttainment
	cand.TTFTP99Ms, cand.TPOTP99Ms = s.TTFT.P99Ms, s.TPOT.P99Ms
}

// launchFlags writes the chosen layout as vLLM and TensorRT-LLM command
// lines.
func launchFlags(t *Transformer, r *ServeResult, c ServeCandidate) (vllm, trt string) {
	s := r.Requests
	model := t.Name
	if model == "" {
		model = "MODEL"
	}
	q := ""
	if r.DType == "float8e4m3fn" {
		q = " --quantization fp8 --kv-cache-dtype fp8"
	}
	vllm = fmt.Sprintf("vllm serve %s --tensor-parallel-size %d --pipeline-parallel-size %d --data-parallel-size %d --max-num-seqs %d --max-num-batched-tokens %d --enable-chunked-prefill --gpu-memory-utilization 0.9%s",
		model, c.TP, c.PP, s.Replicas, s.MaxSeqs, c.MaxBatchedTokens, q)
	trt = fmt.Sprintf("trtllm-serve %s --tp_size %d --pp_size %d --max_batch_size %d --max_num_tokens %d --kv_cache_free_gpu_memory_fraction 0.9 (x %d replicas behind a router)",
		model, c.TP, c.PP, s.MaxSeqs, c.MaxBatchedTokens, s.Replicas)
	if c.Disagg != "" {
		vllm += fmt.Sprintf(" (disaggregated: %s prefill : decode instances with --kv-transfer-config, e.g. NixlConnector)", s.Disagg)
		trt = fmt.Sprintf("trtllm-serve disaggregated -c disagg.yaml (context_servers num_instances %d, generation_servers num_instances %d, each --tp_size %d --max_num_tokens %d)",
			mustSplit(s.Disagg, 0), mustSplit(s.Disagg, 1), c.TP, c.MaxBatchedTokens)
	}
	return vllm, trt
}

// mustSplit returns part i of "P:D".
func mustSplit(pd string, i int) int {
	var p, d int
	fmt.Sscanf(pd, "%d:%d", &p, &d)
	if i == 0 {
		return p
	}
	return d
}
