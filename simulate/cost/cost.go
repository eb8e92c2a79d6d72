package cost

// This file implements the cost types, the op registry and the node
// context that per-op functions read.

import (
	"fmt"
	"math"
	"sync"

	"github.com/wolong-dev/wolong/ir"
)

// Class is an op class; each has its own efficiency in hw.Efficiency (the
// names match the JSON keys there). Free ops launch no kernel. An op's
// class is declared in ir's op table (ir.OpInfo.Class).
type Class = ir.CostClass

// Op classes.
const (
	MatMul        = ir.CostMatMul
	Conv          = ir.CostConv
	Depthwise     = ir.CostDepthwise
	Attention     = ir.CostAttention
	RNN           = ir.CostRNN
	Elementwise   = ir.CostElementwise
	Reduction     = ir.CostReduction
	Normalization = ir.CostNormalization
	DataMovement  = ir.CostDataMovement
	Other         = ir.CostOther
	Free          = ir.CostFree
	Control       = ir.CostControl
	Fused         = ir.CostFused
)

// Work is one kind of sub-kernel of a node: Count instances of FLOPs each,
// with Tiles parallel output tiles each (0: enough to fill the device).
type Work struct {
	FLOPs float64
	Tiles float64
	Count float64
	// Rows is a CPU GEMM's rows of A per call (hw gemm_half_rows); 0:
	// not a float GEMM, or not costed by its rows.
	Rows float64
	// Cols is a CPU GEMM's output columns per call (hw gemm_col_lanes):
	// a MatMul's N, a convolution's output positions per image; 0: not
	// costed by them.
	Cols float64
}

// Cost is what a per-op function reports: the op's work, independent of
// the hardware.
type Cost struct {
	Class Class
	// Op is the key the efficiency is looked up by (hw.Efficiency.For):
	// the node's op type, domain-qualified outside ai.onnx (OpKey); set by
	// Model.Node. "" takes the class's efficiency.
	Op      string
	FLOPs   float64 // total floating-point operations (2 x MACs)
	Bytes   float64 // bytes read + written in device memory
	Kernels int64   // kernel launches
	// Work splits FLOPs into sub-kernels for the waves model; nil means one
	// kernel of FLOPs filling the device as well as its bytes allow.
	Work []Work
	// DType is the element type the arithmetic runs in.
	DType ir.DType
	// WeightBytes counts the bytes of float initializer inputs (trainable
	// weights) the node reads; training mode uses it.
	WeightBytes float64
	// Note qualifies an estimate (assumed trip count, fallback costing).
	Note string
	// StagedBytes is the part of Bytes moved by a staging pass that runs
	// before the arithmetic and does not overlap it (an im2col buffer
	// written and read back): its time adds to max(compute, memory).
	StagedBytes float64
	// Steps is the number of sequential library calls inside each kernel
	// (0: one): a CPU library runs a grouped conv one group at a time,
	// each call paying the class's fixed overhead on its own slice of the
	// traffic.
	Steps int64
	// Spans is the number of broadcast spans a CPU runtime loops over one
	// call at a time (hw broadcast_span_us each; 0 or 1: none).
	Spans float64
	// Unaligned marks a matrix op whose GEMM dimensions are not multiples
	// of the hardware's tensor_core_align: it runs on the vector units.
	Unaligned bool
}

// Func computes the cost of one node. Returning an error makes the cost
// Unknown with the error as the reason.
type Func func(c *Ctx) (Cost, error)

type entry struct {
	class Class
	fn    Func
}

// Register adds the cost function fn for ops in domain, each in the
// class ir's op table declares for it. Call it from registerAll only: the
// registry is built on first use (not at start-up), and building it panics
// on a duplicate or an op the table does not declare (programming errors
// any test catches).
func Register(domain string, fn Func, ops ...string) {
	if registryBuilt {
		panic("cost: Register after the registry was read")
	}
	registrations = append(registrations, registration{domain, fn, ops})
}

type registration struct {
	domain string
	fn     Func
	ops    []string
}

var (
	registrations []registration
	registryBuilt bool
)

// registry holds the cost functions by op, built from the registrations.
func registry() map[ir.OpKey]entry {
	registryOnce.Do(func() { registryMap = buildRegistry() })
	return registryMap
}

// registryOnce and registryMap are a sync.Once and its value, not a
// sync.OnceValue variable: registerAll reaches registry itself, and a
// variable's initializer may not.
var (
	registryOnce sync.Once
	registryMap  map[ir.OpKey]entry
)

func buildRegistry() map[ir.OpKey]entry {
	registerAll()
	t := map[ir.OpKey]entry{}
	for _, r := range registrations {
		for _, op := range r.ops {
			k := ir.Key(r.domain, op)
			class := ir.MustInfo("cost", k).Class()
			if class == "" {
				panic("cost: ir's op table declares no cost class for " + k.String())
			}
			if _, dup := t[k]; dup {
				panic("cost: op registered twice: " + k.String())
			}
			t[k] = entry{class, r.fn}
		}
	}
	registrations, registryBuilt = nil, true
	return t
}

// Registered reports whether (domain, op) has a cost function.
func Registered(domain, op string) bool {
	_, ok := registry()[ir.Key(domain, op)]
	return ok
}

// ClassOf returns the class of (domain, op) when it has a cost function,
// or "" if none.
func ClassOf(domain, op string) Class { return registry()[ir.Key(domain, op)].class }

// Ctx is what a cost function sees of its node.
type Ctx struct {
	Node  *ir.Node
	Class Class // the class the op was registered with
	m     *Model

	composite Estimate // set by control-flow functions
}

// Input returns input i or nil.
func (c *Ctx) Input(i int) *ir.Value { return c.Node.Input(i) }

// Output returns output i or nil.
func (c *Ctx) Output(i int) *ir.Value { return c.Node.Output(i) }

// Dims returns the static dims of v, or an error naming it.
func (c *Ctx) Dims(v *ir.Value) ([]int64, error) {
	if v == nil {
		return nil, fmt.Errorf("missing tensor")
	}
	d, ok := v.Type.Shape.Ints()
	if !ok {
		return nil, fmt.Errorf("shape of %q is %s", v.Name, v.Type.String())
	}
	return d, nil
}

// InDims returns the static dims of input i.
func (c *Ctx) InDims(i int) ([]int64, error) {
	if c.Input(i) == nil {
		return nil, fmt.Errorf("input %d is absent", i)
	}
	return c.Dims(c.Input(i))
}

// OutDims returns the static dims of output i.
func (c *Ctx) OutDims(i int) ([]int64, error) {
	if c.Output(i) == nil {
		return nil, fmt.Errorf("output %d is absent", i)
	}
	return c.Dims(c.Output(i))
}

// Elems returns the element count of v.
func (c *Ctx) Elems(v *ir.Value) (float64, error) {
	if v == nil {
		return 0, fmt.Errorf("missing tensor")
	}
	n, ok := v.Type.Shape.NumElements()
	if !ok {
		return 0, fmt.Errorf("shape of %q is %s", v.Name, v.Type.String())
	}
	return float64(n), nil
}

// OutElems returns the element count of output i.
func (c *Ctx) OutElems(i int) (float64, error) {
	if c.Output(i) == nil {
		return 0, fmt.Errorf("output %d is absent", i)
	}
	return c.Elems(c.Output(i))
}

// InElems returns the element count of input i.
func (c *Ctx) InElems(i int) (float64, error) {
	if c.Input(i) == nil {
		return 0, fmt.Errorf("input %d is absent", i)
	}
	return c.Elems(c.Input(i))
}

// Bytes returns the size of v in device memory (0 for an absent value).
func (c *Ctx) Bytes(v *ir.Value) (float64, error) { return c.m.valueBytes(v) }

// IOBytes returns the bytes of every present input and output.
func (c *Ctx) IOBytes() (float64, error) {
	var total float64
	for _, vs := range [][]*ir.Value{c.Node.Inputs, c.Node.Outputs} {
		for _, v := range vs {
			b, err := c.m.valueBytes(v)
			if err != nil {
				return 0, err
			}
			total += b
		}
	}
	return total, nil
}

// OutBytes returns the bytes of every present output.
func (c *Ctx) OutBytes() (float64, error) {
	var total float64
	for _, v := range c.Node.Outputs {
		b, err := c.m.valueBytes(v)
		if err != nil {
			return 0, err
		}
		total += b
	}
	return total, nil
}

// DType returns the arithmetic dtype: the first float input's (after any
// --dtype override), else the first input's.
func (c *Ctx) DType() ir.DType {
	if int8DType(c.Node) {
		if c.cpuLibrary() && !cpuInt8Ops[ir.OpKey{Domain: c.Node.Domain, Name: c.Node.Op}] {
			return c.m.dtype(ir.Float32) // the float32 units' rate on CPUs (int8.go)
		}
		return ir.Int8 // the int8 units, whatever the scales' dtype (int8.go)
	}
	var first ir.DType
	for _, v := range c.Node.Inputs {
		if v == nil || v.Type.Kind != ir.KindTensor {
			continue
		}
		if first == ir.Undefined {
			first = v.Type.DType
		}
		if v.Type.DType.IsFloat() {
			return c.m.dtype(v.Type.DType)
		}
	}
	if first == ir.Undefined {
		for _, v := range c.Node.Outputs {
			if v != nil && v.Type.Kind == ir.KindTensor {
				return c.m.dtype(v.Type.DType)
			}
		}
	}
	return c.m.dtype(first)
}

// Tiles returns the GEMM output tiles of an [m x n] result, batch times,
// for the waves model.
func (c *Ctx) Tiles(batch, m, n float64) float64 {
	e := c.m.HW.Efficiency
	return batch * math.Ceil(m/float64(e.TileM)) * math.Ceil(n/float64(e.TileN))
}

// Simple returns the cost of one kernel of flops moving all its inputs and
// outputs, in the node's class.
func (c *Ctx) Simple(flops float64) (Cost, error) {
	b, err := c.IOBytes()
	if err != nil {
		return Cost{}, err
	}
	return Cost{Class: c.Class, FLOPs: flops, Bytes: b, Kernels: 1, DType: c.DType()}, nil
}

// unaligned reports whether the hardware requires tensor-core GEMM
// dimensions to be multiples of tensor_core_align and one of dims is not.
func (c *Ctx) unaligned(dims ...float64) bool {
	a := float64(c.m.HW.TensorCoreAlign)
	if a <= 1 {
		return false
	}
	for _, d := range dims {
		if math.Mod(d, a) != 0 {
			return true
		}
	}
	return false
}

// addStaged adds b bytes of staging traffic (see StagedBytes).
func (c *Cost) addStaged(b float64) {
	c.StagedBytes += b
	c.Bytes += b
}

// cpuLibrary reports whether the node runs as calls into a CPU library
// (one thread of control, library loops instead of kernel launches).
func (c *Ctx) cpuLibrary() bool { return c.m.HW.Kind == "cpu" }

func prod(d []int64) float64 {
	p := 1.0
	for _, x := range d {
		p *= float64(x)
	}
	return p
}
