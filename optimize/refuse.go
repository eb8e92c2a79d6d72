package optimize

// This file implements the record of missed opportunities: a pass calls
// Context.Refuse at a guard that turns a candidate down, naming the guard
// (an ir refusal code), the nodes, the reason in words and what the
// rewrite would have saved; Run collects the refusals in Result.Refusals,
// each with the gain a GainPredictor puts on the saving.

import (
	"sort"

	"github.com/wolong-dev/wolong/ir"
)

// Saving is what a refused rewrite would have saved, independent of the
// hardware: memory traffic that would have stayed on chip and kernel
// launches.
type Saving struct {
	Bytes   float64 // bytes of device-memory traffic (written and read back)
	Kernels int64   // kernel launches
}

// Refusal is a candidate a pass looked at and did not rewrite.
type Refusal struct {
	Pass   string   `json:"pass"`
	Code   ir.Code  `json:"code"`
	Nodes  []string `json:"nodes"`
	Reason string   `json:"reason"`
	// SavedBytes and SavedKernels are what the rewrite would have saved;
	// GainMs is the predicted time it would have saved (0 without a
	// GainPredictor).
	SavedBytes   float64 `json:"saved_bytes"`
	SavedKernels int64   `json:"saved_kernels"`
	GainMs       float64 `json:"gain_ms"`
}

// GainPredictor is a Predictor that also prices a Saving (the simulator's
// cost model): Run uses it for Refusal.GainMs.
type GainPredictor interface {
	GainMs(s Saving) float64
}

// maxRefusals bounds the refusals one run records (the largest gains are
// kept when more are offered).
const maxRefusals = 10000

// refusalLog is the part of the Context that records refusals: the pass
// running, the refusals so far and their keys (a guard may see one
// candidate twice).
type refusalLog struct {
	pass        string
	refusals    []Refusal
	refusalSeen map[string]bool
}

// Refuse records that the current pass left nodes alone at the guard
// code, for reason (in words, naming the nodes and values involved), and
// what firing would have saved. It does nothing unless
// Options.Refusals asked for the record.
func (c *Context) Refuse(code ir.Code, nodes []*ir.Node, reason string, s Saving) {
	if !c.Opt.Refusals {
		return
	}
	r := Refusal{Pass: c.pass, Code: code, Nodes: names(nodes), Reason: reason, SavedBytes: s.Bytes, SavedKernels: s.Kernels}
	if gp, ok := c.Opt.Predictor.(GainPredictor); ok {
		r.GainMs = gp.GainMs(s)
	}
	if c.refusalSeen == nil {
		c.refusalSeen = map[string]bool{}
	}
	key := r.Pass + "\x00" + string(r.Code) + "\x00" + joinNames(r.Nodes)
	if c.refusalSeen[key] {
		return
	}
	c.refusalSeen[key] = true
	c.refusals = append(c.refusals, r)
	if len(c.refusals) > 2*maxRefusals {
		c.refusals = rankRefusals(c.refusals)[:maxRefusals]
	}
}

func joinNames(ns []string) string {
	n := 0
	for _, s := range ns {
		n += len(s) + 1
	}
	b := make([]byte, 0, n)
	for _, s := range ns {
		b = append(append(b, s...), 0)
	}
	return string(b)
}

// rankRefusals sorts refusals by gain, largest first (then by pass order
// of recording, which a stable sort keeps).
func rankRefusals(rs []Refusal) []Refusal {
	sort.SliceStable(rs, func(i, j int) bool {
		if rs[i].GainMs != rs[j].GainMs {
			return rs[i].GainMs > rs[j].GainMs
		}
		return rs[i].SavedBytes > rs[j].SavedBytes
	})
	return rs
}

// valueBytes is the size of v when its shape and type are static (0
// otherwise).
func valueBytes(v *ir.Value) float64 {
	if v == nil || v.Type.Kind != ir.KindTensor {
		return 0
	}
	n, ok := v.Type.Shape.NumElements()
	if !ok {
		return 0
	}
	return float64(v.Type.DType.StorageBytes(n))
}
