package calibrate

// This file reads PyTorch profiler Chrome traces.

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/wolong-dev/wolong/ir"
)

// torchOps maps aten operators to the ONNX op that costs the same work.
// Operators not listed (views, allocation, autograd bookkeeping) are not
// used.
var torchOps = map[string]string{
	"aten::mm": "MatMul", "aten::bmm": "MatMul", "aten::matmul": "MatMul", "aten::addmm": "Gemm", "aten::linear": "MatMul",
	"aten::conv1d": "Conv", "aten::conv2d": "Conv", "aten::conv3d": "Conv", "aten::convolution": "Conv", "aten::_convolution": "Conv",
	"aten::add": "Add", "aten::add_": "Add", "aten::sub": "Sub", "aten::mul": "Mul", "aten::mul_": "Mul", "aten::div": "Div",
	"aten::relu": "Relu", "aten::relu_": "Relu", "aten::sigmoid": "Sigmoid", "aten::tanh": "Tanh", "aten::exp": "Exp",
	"aten::gelu": "Gelu", "aten::softmax": "Softmax", "aten::_softmax": "Softmax",
	"aten::layer_norm": "LayerNormalization", "aten::native_layer_norm": "LayerNormalization",
	"aten::sum": "ReduceSum", "aten::mean": "ReduceMean", "aten::copy_": "Identity", "aten::clone": "Identity",
}

type torchEvent struct {
	Ph   string  `json:"ph"`
	Cat  string  `json:"cat"`
	Name string  `json:"name"`
	Ts   float64 `json:"ts"`
	Dur  float64 `json:"dur"`
	Tid  any     `json:"tid"`
	Args struct {
		InputDims  []json.RawMessage `json:"Input Dims"`
		InputType  []string          `json:"Input type"`
		Concrete   []json.RawMessage `json:"Concrete Inputs"`
		ExternalID *int64            `json:"External id"`
	} `json:"args"`
}

// ParseTorch reads a PyTorch profiler Chrome trace (torch.profiler's
// export_chrome_trace). Each outermost CPU operator that maps to an ONNX op
// becomes a sample: timed by the summed duration of the GPU kernels it and
// the operators inside it launched (linked by "External id") when the trace
// has kernels, else by its own CPU duration.
func ParseTorch(src string, data []byte) (*Profile, error) {
	raw, err := decodeEvents(src, data)
	if err != nil {
		return nil, err
	}
	var ops, kernels []torchEvent
	for i, r := range raw {
		var e torchEvent
		if err := json.Unmarshal(r, &e); err != nil {
			return nil, fmt.Errorf("%s: event %d: %v", src, i, err)
		}
		if e.Ph != "X" || !(e.Dur >= 0) {
			continue
		}
		switch e.Cat {
		case "cpu_op", "Operator", "operator":
			ops = append(ops, e)
		case "kernel", "Kernel":
			kernels = append(kernels, e)
		}
	}
	if len(ops) == 0 {
		return nil, fmt.Errorf("%s: no PyTorch operator events (cat \"cpu_op\"): is this a torch.profiler trace?", src)
	}
	// outermost mapped operator of every operator, per thread, by time
	// containment
	sort.SliceStable(ops, func(i, j int) bool {
		ti, tj := fmt.Sprint(ops[i].Tid), fmt.Sprint(ops[j].Tid)
		if ti != tj {
			return ti < tj
		}
		if ops[i].Ts != ops[j].Ts {
			return ops[i].Ts < ops[j].Ts
		}
		return ops[i].Dur > ops[j].Dur
	})
	owner := make([]int, len(ops)) // index of the outermost mapped op containing ops[i], -1 none
	top := -1
	for i, e := range ops {
		owner[i] = -1
		if top >= 0 && (fmt.Sprint(ops[top].Tid) != fmt.Sprint(e.Tid) || e.Ts >= ops[top].Ts+ops[top].Dur) {
			top = -1
		}
		if top >= 0 {
			owner[i] = top
			continue
		}
		if _, ok := torchOps[e.Name]; ok {
			top, owner[i] = i, i
		}
	}
	byExt := map[int64]int{}
	for i, e := range ops {
		if e.Args.ExternalID != nil && owner[i] >= 0 {
			byExt[*e.Args.ExternalID] = owner[i]
		}
	}
	gpu := make([]float64, len(ops))
	for _, k := range kernels {
		if k.Args.ExternalID == nil {
			continue
		}
		if o, ok := byExt[*k.Args.ExternalID]; ok {
			gpu[o] += k.Dur
		}
	}
	p := &Profile{Source: src, Format: Torch}
	for i, e := range ops {
		if owner[i] != i {
			continue
		}
		s, ok := torchSample(e)
		if !ok {
			continue
		}
		s.Us = e.Dur
		if len(kernels) > 0 {
			s.Us = gpu[i]
		}
		if len(p.Samples) >= maxSamples {
			return nil, fmt.Errorf("%s: more than %d operators", src, maxSamples)
		}
		p.Samples = append(p.Samples, s)
	}
	if len(p.Samples) == 0 {
		return nil, fmt.Errorf("%s: no operator maps to an ONNX op (matmul, conv, elementwise, softmax, layer_norm ...)", src)
	}
	return p, nil
}

func torchDType(s string) ir.DType {
	switch s {
	case "float":
		return ir.Float32
	case "c10::Half":
		return ir.Float16
	case "c10::BFloat16":
		return ir.BFloat16
	case "double":
		return ir.Float64
	case "long int", "int64_t":
		return ir.Int64
	}
	return ir.Undefined
}

// torchSample turns an operator event into a sample: the tensor inputs'
// shapes, reordered into the ONNX op's inputs.
func torchSample(e torchEvent) (Sample, bool) {
	op := torchOps[e.Name]
	var ins []Input
	for i, r := range e.Args.InputDims {
		var dims []int64
		if json.Unmarshal(r, &dims) != nil || len(dims) == 0 {
			continue // a scalar argument or a list of lists
		}
		dt := ir.Undefined
		if i < len(e.Args.InputType) {
			dt = torchDType(e.Args.InputType[i])
		}
		if dt == ir.Undefined || checkDims(dims) != nil {
			continue
		}
		ins = append(ins, Input{DType: dt, Dims: dims})
	}
	if len(ins) == 0 {
		return Sample{}, false
	}
	s := Sample{Name: "", Op: op, DType: ins[0].DType, Runs: 1}
	switch e.Name {
	case "aten::addmm": // (bias, a, b) -> Gemm(a, b, bias)
		if len(ins) < 3 {
			return Sample{}, false
		}
		ins = []Input{ins[1], ins[2], ins[0]}
	case "aten::linear": // (x, W[out,in], b) -> MatMul(x, W^T)
		if len(ins) < 2 || len(ins[1].Dims) != 2 {
			return Sample{}, false
		}
		w := ins[1]
		w.Dims = []int64{w.Dims[1], w.Dims[0]}
		ins = []Input{ins[0], w}
	case "aten::conv1d", "aten::conv2d", "aten::conv3d", "aten::convolution", "aten::_convolution":
		if len(ins) < 2 {
			return Sample{}, false
		}
		k := ins[1].Dims
		if len(k) < 3 {
			return Sample{}, false
		}
		ks := append([]int64(nil), k[2:]...)
		nd := len(ks)
		// argument positions: conv{1,2,3}d(input, weight, bias, stride,
		// padding, dilation, groups); [_]convolution(input, weight, bias,
		// stride, padding, dilation, transposed, output_padding, groups, ...)
		groupsAt := 6
		if e.Name == "aten::convolution" || e.Name == "aten::_convolution" {
			groupsAt = 8
			if v, ok := concreteInts(e, 6, 1); ok && v[0] != 0 {
				return Sample{}, false // transposed convolution
			}
		}
		strides, ok1 := concreteInts(e, 3, nd)
		pad, ok2 := concreteInts(e, 4, nd)
		dil, ok3 := concreteInts(e, 5, nd)
		groups, ok4 := concreteInts(e, groupsAt, 1)
		pads := make([]int64, 2*nd)
		for i, d := range ks {
			pads[i], pads[i+nd] = d/2, d/2 // no concrete inputs: 'same'-style padding, stride 1
			if ok2 {
				pads[i], pads[i+nd] = pad[i], pad[i]
			}
		}
		s.Attrs = []*ir.Attr{{Name: "kernel_shape", Type: ir.AttrInts, Ints: ks}, {Name: "pads", Type: ir.AttrInts, Ints: pads}}
		if ok1 {
			s.Attrs = append(s.Attrs, &ir.Attr{Name: "strides", Type: ir.AttrInts, Ints: strides})
		}
		if ok3 {
			s.Attrs = append(s.Attrs, &ir.Attr{Name: "dilations", Type: ir.AttrInts, Ints: dil})
		}
		if ok4 && groups[0] > 1 {
			s.Attrs = append(s.Attrs, &ir.Attr{Name: "group", Type: ir.AttrInt, I: groups[0]})
		}
	case "aten::softmax", "aten::_softmax", "aten::sum", "aten::mean", "aten::layer_norm", "aten::native_layer_norm":
		ins = ins[:1]
		if e.Name == "aten::layer_norm" || e.Name == "aten::native_layer_norm" {
			last := ins[0].Dims[len(ins[0].Dims)-1]
			ins = append(ins, Input{DType: ins[0].DType, Dims: []int64{last}})
			s.Attrs = []*ir.Attr{{Name: "axis", Type: ir.AttrInt, I: -1}}
		}
	case "aten::copy_", "aten::clone":
		ins = ins[:1]
	}
	if len(ins) > 3 && op != "Conv" {
		ins = ins[:2]
	}
	s.Inputs = ins
	return s, true
}

// concreteInts reads argument i of e's "Concrete Inputs" as n ints: "[2, 2]",
// or "2" (repeated n times). ok is false when the trace has no such value.
func concreteInts(e torchEvent, i, n int) ([]int64, bool) {
	if i >= len(e.Args.Concrete) {
		return nil, false
	}
	var text string
	if json.Unmarshal(e.Args.Concrete[i], &text) != nil || text == "" {
		return nil, false
	}
	var list []int64
	if json.Unmarshal([]byte(text), &list) != nil {
		var v int64
		if json.Unmarshal([]byte(text), &v) != nil {
			return nil, false
		}
		list = []int64{v}
	}
	if len(list) == 1 && n > 1 {
		for len(list) < n {
			list = append(list, list[0])
		}
	}
	if len(list) != n {
		return nil, false
	}
	for _, v := range list {
		if v < 0 || v > 1<<20 {
			return nil, false
		}
	}
	return list, true
}
