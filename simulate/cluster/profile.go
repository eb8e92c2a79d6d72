package cluster

// This file implements the single-GPU profile a cluster simulation starts
// from: one training step of the model on one GPU (simulate.Run), reduced
// to what the strategies need: per-op forward and backward time in
// topological order, the trainable parameters with the time each one's
// gradient is ready during backward, and the activations each op hands on.

import (
	"fmt"
	"math"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate"
	"github.com/wolong-dev/wolong/simulate/cost"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// Param is one trainable parameter (a float initializer, or a float value
// computed only from constants, as in models whose weights are generated
// by ConstantOfShape).
type Param struct {
	Name     string
	Bytes    float64
	Elems    float64
	FirstUse int     // index in Profile.Ops of its first consumer
	ReadyS   float64 // time in the step its gradient is complete (backward)
}

// Op is one top-level node of the forward pass.
type Op struct {
	Name string
	Op   string
	Node *ir.Node
	// Forward and backward device time for the profile's batch, s.
	FwdS, BwdS float64
	// FwdEndS is when its forward kernel ends in the step.
	FwdEndS float64
	// OutBytes is the bytes of its outputs that later ops (or the graph
	// outputs) read; LastUse is the index of the last op that reads any
	// of them (len(Ops) for graph outputs, -1 when unused).
	OutBytes float64
	LastUse  int
	// Dynamic: some output's shape is not static (an rdma transfer of it
	// needs a metadata message).
	Dynamic bool
	Params  []int // indices into Profile.Params it consumes
}

// Profile is one GPU's training step of a model, the input of Simulate,
// Sweep and Place.
type Profile struct {
	Model *ir.Model
	GPU   *hw.Hardware
	Batch int64 // per-GPU batch (0: as the model gives it)
	Sim   *simulate.Result

	Ops    []Op
	Params []Param

	ForwardS   float64 // forward pass alone (inference step)
	BackwardS  float64 // backward pass
	OptimizerS float64 // optimizer update
	StepS      float64 // forward + backward + optimizer: one training step

	ParamBytes float64
	Warnings   []string
	Notes      []string
}

// ProfileOptions steer NewProfile.
type ProfileOptions struct {
	// Batch is the per-GPU batch the model was inferred at (0: as the
	// model gives it); see simulate.Options.Batch.
	Batch int64
	// Sim carries the single-GPU options (streams, cost options); its
	// Mode and Batch are overridden.
	Sim simulate.Options
}

// NewProfile simulates one training step of m on gpu and extracts what
// the cluster layer needs. It reads m as inferred (with Batch, when set:
// see simulate.CheckBatch) and changes nothing in it.
func NewProfile(m *ir.Model, gpu *hw.Hardware, opt ProfileOptions) (*Profile, error) {
	if m == nil || m.Graph == nil {
		return nil, fmt.Errorf("no model")
	}
	if gpu == nil {
		return nil, fmt.Errorf("no GPU")
	}
	if opt.Batch < 0 {
		return nil, fmt.Errorf("batch %d must be positive", opt.Batch)
	}
	so := opt.Sim
	so.Mode = simulate.Train
	so.Batch = opt.Batch
	res, err := simulate.Run(m, gpu, so)
	if err != nil {
		return nil, fmt.Errorf("%w", err)
	}
	p := &Profile{Model: m, GPU: gpu, Batch: opt.Batch, Sim: res}
	p.Warnings = append(p.Warnings, res.Warnings...)
	p.build(so.Cost)
	return p, nil
}

// build fills p from its one-GPU simulation: the forward ops, which of
// them depend on the graph inputs, the parameters they read, the
// activations they hand on, and the backward and optimizer times.
func (p *Profile) build(co cost.Options) {
	idx := p.forwardOps()
	dyn, dynNode := p.dynamicOps(idx)
	p.findParams(dyn, dynNode)
	p.activations(idx, dynNode)
	p.backward(idx, co)
}

// forwardOps appends an Op per top-level forward task (the first tasks,
// one per top-level node, in order) and returns each node's index.
func (p *Profile) forwardOps() map[*ir.Node]int {
	g := p.Model.Graph
	res := p.Sim
	// forward tasks are the first ones, one per top-level node, in order
	idx := map[*ir.Node]int{}
	for i := range res.Tasks {
		t := &res.Tasks[i]
		if t.Phase != simulate.Forward || t.Node == nil || t.Node.Graph != g {
			continue
		}
		idx[t.Node] = len(p.Ops)
		p.Ops = append(p.Ops, Op{Name: t.Name(), Op: t.Op(), Node: t.Node, FwdS: t.Est.DeviceS, FwdEndS: t.End, LastUse: -1})
	}
	return idx
}

// dynamicOps finds the values and ops that depend on a graph input (an
// op with subgraphs also through the nodes its subgraphs read).
func (p *Profile) dynamicOps(idx map[*ir.Node]int) (map[*ir.Value]bool, []bool) {
	g := p.Model.Graph
	n := len(p.Ops)
	// dynamic values: reachable from a (non-initializer) graph input
	dyn := map[*ir.Value]bool{}
	for _, in := range g.Inputs {
		if in != nil && in.Const == nil {
			dyn[in] = true
		}
	}
	dynNode := make([]bool, n)
	for i := range p.Ops {
		nd := p.Ops[i].Node
		d := false
		for _, v := range nd.Inputs {
			if v != nil && dyn[v] {
				d = true
				break
			}
		}
		if !d && len(nd.Subgraphs()) > 0 {
			for _, dep := range ir.Deps(g, nd) {
				if j, ok := idx[dep]; ok && dynNode[j] {
					d = true
					break
				}
			}
		}
		dynNode[i] = d
		if d {
			for _, o := range nd.Outputs {
				if o != nil {
					dyn[o] = true
				}
			}
		}
	}
	return dyn, dynNode
}

// findParams lists the parameters: constant float values of two or more
// elements read by a dynamic op.
func (p *Profile) findParams(dyn map[*ir.Value]bool, dynNode []bool) {
	pidx := map[*ir.Value]int{}
	for i := range p.Ops {
		if !dynNode[i] {
			continue
		}
		for _, v := range p.Ops[i].Node.Inputs {
			if v == nil || dyn[v] || !v.Type.DType.IsFloat() {
				continue
			}
			if _, ok := pidx[v]; ok {
				p.Ops[i].Params = appendUnique(p.Ops[i].Params, pidx[v])
				continue
			}
			el, ok := v.Type.Shape.NumElements()
			if !ok || el < 2 {
				continue // scalars and unknown sizes are not trainable weights
			}
			b := float64(v.Type.DType.StorageBytes(el))
			if b <= 0 {
				continue
			}
			pidx[v] = len(p.Params)
			p.Ops[i].Params = append(p.Ops[i].Params, len(p.Params))
			p.Params = append(p.Params, Param{Name: v.Name, Bytes: b, Elems: float64(el), FirstUse: i})
			p.ParamBytes += b
		}
	}
}

// activations sets each dynamic op's output bytes and last reader (n for
// a graph output).
func (p *Profile) activations(idx map[*ir.Node]int, dynNode []bool) {
	g := p.Model.Graph
	n := len(p.Ops)
	// activations each op hands on, and their last reader
	for i := range p.Ops {
		op := &p.Ops[i]
		if !dynNode[i] {
			continue
		}
		for _, o := range op.Node.Outputs {
			if o == nil {
				continue
			}
			last := -1
			for _, u := range o.Uses {
				top := u.Node
				for depth := 0; top != nil && top.Graph != g && depth < 64; depth++ {
					if top.Graph == nil {
						top = nil
						break
					}
					top = top.Graph.ParentNode
				}
				if j, ok := idx[top]; ok && j > last {
					last = j
				}
			}
			if g.IsOutput(o) {
				last = n
			}
			if last < 0 {
				continue
			}
			if last > op.LastUse {
				op.LastUse = last
			}
			if !o.Type.Shape.IsStatic() {
				op.Dynamic = true
			}
			if el, ok := o.Type.Shape.NumElements(); ok {
				if b := o.Type.DType.StorageBytes(el); b > 0 {
					op.OutBytes += float64(b)
				}
			}
		}
	}
}

// backward takes the backward and optimizer times from simulate's tasks,
// costs a fused Adam update when simulate saw no weights, and sets each
// parameter's gradient-ready time.
func (p *Profile) backward(idx map[*ir.Node]int, co cost.Options) {
	res := p.Sim
	// backward: simulate's backward tasks (reverse order), with the weight
	// gradient added where simulate did not see a weight (weights computed
	// by ConstantOfShape rather than stored as initializers)
	var fwdEnd float64
	for i := range p.Ops {
		fwdEnd = math.Max(fwdEnd, p.Ops[i].FwdEndS)
	}
	p.ForwardS = fwdEnd
	extra := 0.0
	added := 0
	bwdEnd := fwdEnd
	for i := range res.Tasks {
		t := &res.Tasks[i]
		switch t.Phase {
		case simulate.Backward:
			j, ok := idx[t.Node]
			if !ok {
				continue
			}
			op := &p.Ops[j]
			d := t.Est.DeviceS
			if len(op.Params) > 0 && t.Est.WeightBytes == 0 && weighted(t.Est.Class) {
				extra += op.FwdS // gradient w.r.t. the weights, as simulate costs it
				d += op.FwdS
				added++
			}
			op.BwdS = d
			end := t.End + extra
			for _, k := range op.Params {
				p.Params[k].ReadyS = math.Max(p.Params[k].ReadyS, end)
			}
			bwdEnd = math.Max(bwdEnd, end)
		case simulate.Optimizer:
			p.OptimizerS = t.Est.DeviceS
		}
	}
	p.BackwardS = bwdEnd - fwdEnd
	if added > 0 {
		p.Notes = append(p.Notes, fmt.Sprintf("%d op(s) read weights computed from constants (not initializers): their backward pass counts a weight gradient (+1x forward), as for initializer weights", added))
	}
	var elems float64
	for _, q := range p.Params {
		elems += q.Elems
	}
	if p.ParamBytes > 0 && res.OptimizerBytes/8 < elems/2 {
		e := cost.New(p.GPU, p.Model, co).Time(cost.Cost{Class: cost.Elementwise, FLOPs: 12 * elems, Bytes: 3*p.ParamBytes + 16*elems, Kernels: 1, DType: ir.Float32})
		p.OptimizerS = e.DeviceS
		p.Notes = append(p.Notes, "optimizer: one fused Adam update over the parameters found here (simulate saw no initializer weights)")
	}
	p.StepS = p.ForwardS + p.BackwardS + p.OptimizerS
	for k := range p.Params {
		if p.Params[k].ReadyS == 0 {
			p.Params[k].ReadyS = bwdEnd
		}
	}
}

func weighted(c cost.Class) bool {
	return c.Matrix() || c == cost.Normalization || c == cost.Fused
}

func appendUnique(s []int, v int) []int {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

// Rescale multiplies each op's forward and backward time by f(op) (1
// keeps it) and recomputes the step: forward and backward totals and the
// time each gradient is ready. It answers "what if these kernels were
// faster" (a different conv algorithm, a calibration) without simulating
// again. The idle time simulate left between kernels is kept.
func (p *Profile) Rescale(f func(op *Op) float64) {
	n := len(p.Ops)
	oldBwd := make([]float64, n+1) // suffix sums of backward time: ops i..n-1
	newBwd := make([]float64, n+1)
	var oldF, newF float64
	for i := range p.Ops {
		oldF += p.Ops[i].FwdS
	}
	for i := n - 1; i >= 0; i-- {
		oldBwd[i] = oldBwd[i+1] + p.Ops[i].BwdS
	}
	for i := range p.Ops {
		k := f(&p.Ops[i])
		if !(k >= 0) || math.IsInf(k, 0) {
			k = 1
		}
		p.Ops[i].FwdS *= k
		p.Ops[i].BwdS *= k
		newF += p.Ops[i].FwdS
	}
	for i := n - 1; i >= 0; i-- {
		newBwd[i] = newBwd[i+1] + p.Ops[i].BwdS
	}
	t := 0.0
	for i := range p.Ops {
		t += p.Ops[i].FwdS
		p.Ops[i].FwdEndS = t
	}
	shift := newF - oldF
	for k := range p.Params {
		q := &p.Params[k]
		// ready when the backward of its first consumer is done
		i := q.FirstUse
		q.ReadyS += shift - oldBwd[i] + newBwd[i]
	}
	p.ForwardS += shift
	p.BackwardS += newBwd[0] - oldBwd[0]
	p.StepS = p.ForwardS + p.BackwardS + p.OptimizerS
}
