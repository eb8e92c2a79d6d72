package llm

// This file implements the --strategy auto search: every layout of TP x
// PP x DP x CP (x EP) x virtual stages x sequence parallelism x ZeRO
// stage x recomputation x micro-batch that splits the model over the
// cluster, each predicted by the planner (train.go) with the layer
// costs shared between candidates, ranked by step time among those that
// fit in memory. It does not search the global batch or the sequence
// length (they change what is trained, not how), nor the framework.

import (
	"fmt"
	"github.com/wolong-dev/wolong/simulate/cluster"
	"sort"
)

// SearchOptions bounds the search. An empty list searches that dimension
// over its defaults; a list with one value fixes it (what a flag given
// next to --strategy auto does).
type SearchOptions struct {
	// Base carries what the search keeps: GlobalBatch (required), Seq,
	// DType, Framework, MemoryGB. Its parallel fields are ignored.
	Base LLMOptions
	// TP defaults to the powers of two that divide the NVLink domain
	// (tensor parallelism across domains is never faster); PP to the powers of two
	// up to the layers; CP to 1, 2, 4, 8, 16 when the sequence is 8K or
	// longer, else 1; EP to the powers of two dividing the experts (1 for
	// a dense model); VirtualStages to 1, 2, 4, 8 (Llama 3 405B's own
	// layout is vp 8); ZeRO to 0-3; Recompute to
	// none, selective, full; MicroBatch to 1, 2, 4, 8.
	TP, PP, CP, EP, VirtualStages, ZeRO, MicroBatch []int
	Recompute                                       []Recompute
	// SequenceParallel lists the settings tried when TP > 1 (default:
	// true only; it never costs time and always saves memory in this model).
	SequenceParallel []bool
	// Top is how many fitting layouts to keep (default 10).
	Top int
}

// SearchResult is the outcome of a search.
type SearchResult struct {
	// Best are the fastest layouts that fit, fastest first, with their
	// assumptions and warnings.
	Best []*LLMResult `json:"best"`
	// Smallest is the layout needing the least memory when none fits.
	Smallest  *LLMResult `json:"smallest,omitempty"`
	Evaluated int        `json:"evaluated"` // layouts predicted
	Fitting   int        `json:"fitting"`   // of those, layouts that fit
}

// maxSearch bounds the layouts one search predicts (a user's lists could
// multiply to billions).
const maxSearch = 2_000_000

// SearchLLM finds the fastest layouts of t on c under s.
func SearchLLM(t *Transformer, c *cluster.Cluster, s SearchOptions) (*SearchResult, error) {
	if t == nil || c == nil {
		return nil, fmt.Errorf("no model or cluster")
	}
	base := s.Base
	if base.GlobalBatch <= 0 {
		return nil, fmt.Errorf("the search needs a global batch (sequences per step)")
	}
	tt := *t
	if base.Seq > 0 {
		tt.Seq = base.Seq
	}
	if err := tt.Validate(); err != nil {
		return nil, err
	}
	if tt.Seq <= 0 {
		return nil, fmt.Errorf("sequence length unknown (the model's is symbolic): give one")
	}
	base.Seq = tt.Seq
	// check the fixed fields once, on the trivial layout's defaults
	probe := base
	probe.TP, probe.PP, probe.DP, probe.CP, probe.EP, probe.VirtualStages, probe.ZeRO = 1, 1, 0, 1, 1, 1, 0
	probe.GlobalBatch = c.GPUs()
	probe.Recompute = ""
	p, err := probe.withDefaults(&tt, c.GPUs())
	if err != nil {
		return nil, err
	}
	base.DType, base.Framework = p.DType, p.Framework
	d := s.dims(&tt, c)
	if n := d.count(); n > maxSearch {
		return nil, fmt.Errorf("the search spans %d layouts (at most %d): fix some dimensions", n, maxSearch)
	}
	top := s.Top
	if top <= 0 {
		top = 10
	}
	r := newLLMRun(&tt, c, base.DType, base.Framework)
	out := &SearchResult{}
	gpus := c.GPUs()
	for _, tp := range d.tp {
		for _, cp := range d.cp {
			for _, pp := range d.pp {
				if tp*cp*pp > gpus || gpus%(tp*cp*pp) != 0 {
					continue
				}
				dp := gpus / (tp * cp * pp)
				for _, o := range d.layouts(base, tp, pp, dp, cp) {
					o, err := o.withDefaults(&tt, gpus)
					if err != nil {
						continue // the layout does not split the model or the batch
					}
					res := r.simulate(o)
					out.Evaluated++
					if !res.Memory.Fits {
						if out.Fitting == 0 && (out.Smallest == nil || res.Memory.TotalGB < out.Smallest.Memory.TotalGB) {
							out.Smallest = res
						}
						continue
					}
					out.Fitting++
					out.Smallest = nil
					out.Best = keepFastest(out.Best, res, top)
				}
			}
		}
	}
	if out.Evaluated == 0 {
		return nil, fmt.Errorf("no layout of the %d GPUs splits %s with global batch %d", gpus, tt.Name, base.GlobalBatch)
	}
	for _, res := range append(out.Best, out.Smallest) {
		if res != nil {
			o := optionsOf(res, base)
			res.Assumptions, res.Warnings = r.notes(o, res)
		}
	}
	return out, nil
}

// keepFastest inserts res into best (sorted by step time), keeping top.
func keepFastest(best []*LLMResult, res *LLMResult, top int) []*LLMResult {
	if len(best) == top && res.StepMs >= best[top-1].StepMs {
		return best
	}
	i := sort.Search(len(best), func(i int) bool { return best[i].StepMs > res.StepMs })
	best = append(best, nil)
	copy(best[i+1:], best[i:])
	best[i] = res
	if len(best) > top {
		best = best[:top]
	}
	return best
}

// optionsOf rebuilds the options a result was predicted under.
func optionsOf(res *LLMResult, base LLMOptions) LLMOptions {
	o := base
	o.TP, o.PP, o.DP, o.EP, o.CP, o.VirtualStages = res.TP, res.PP, res.DP, res.EP, res.CP, res.VirtualStages
	o.SequenceParallel, o.ZeRO, o.Recompute, o.MicroBatch = res.SeqParallel, res.ZeRO, res.Recompute, res.MicroBatch
	return o
}

// searchDims is the values tried per dimension.
type searchDims struct {
	tp, pp, cp, ep, vp, zero, mb []int
	rc                           []Recompute
	sp                           []bool
}

func (d *searchDims) count() int {
	return len(d.tp) * len(d.pp) * len(d.cp) * len(d.ep) * len(d.vp) * len(d.zero) * len(d.mb) * len(d.rc) * len(d.sp)
}

// layouts lists the options for one tp x pp x dp x cp split.
func (d *searchDims) layouts(base LLMOptions, tp, pp, dp, cp int) []LLMOptions {
	var out []LLMOptions
	for _, ep := range d.ep {
		for _, vp := range d.vp {
			if vp > 1 && pp == 1 {
				continue
			}
			for _, sp := range d.sp {
				if sp && tp == 1 && len(d.sp) > 1 {
					continue // the same layout as without
				}
				for _, z := range d.zero {
					for _, mb := range d.mb {
						if base.GlobalBatch%(dp*mb) != 0 {
							continue
						}
						for _, rc := range d.rc {
							o := base
							o.TP, o.PP, o.DP, o.CP, o.EP, o.VirtualStages = tp, pp, dp, cp, ep, vp
							o.SequenceParallel, o.ZeRO, o.MicroBatch, o.Recompute = sp, z, mb, rc
							out = append(out, o)
						}
					}
				}
			}
		}
	}
	return out
}

// dims fills the defaults of s for t on c.
func (s SearchOptions) dims(t *Transformer, c *cluster.Cluster) *searchDims {
	pow2 := func(limit int) []int {
		var v []int
		for x := 1; x <= limit; x *= 2 {
			v = append(v, x)
		}
		return v
	}
	or := func(given, def []int) []int {
		if len(given) > 0 {
			return given
		}
		return def
	}
	d := &searchDims{rc: s.Recompute, sp: s.SequenceParallel}
	var tps []int
	for _, tp := range pow2(min(c.GPUsPerMachine, t.Heads)) {
		if c.GPUsPerMachine%tp == 0 { // a group never straddles two domains
			tps = append(tps, tp)
		}
	}
	d.tp = or(s.TP, tps)
	d.pp = or(s.PP, pow2(t.Layers))
	cps := []int{1}
	if t.Seq >= 8192 {
		cps = pow2(16)
	}
	d.cp = or(s.CP, cps)
	eps := []int{1}
	if t.MoE() {
		eps = pow2(t.Experts)
	}
	d.ep = or(s.EP, eps)
	d.vp = or(s.VirtualStages, []int{1, 2, 4, 8})
	d.zero = or(s.ZeRO, []int{0, 1, 2, 3})
	d.mb = or(s.MicroBatch, []int{1, 2, 4, 8})
	if len(d.rc) == 0 {
		d.rc = Recomputes()
	}
	if len(d.sp) == 0 {
		d.sp = []bool{true}
	}
	return d
}
