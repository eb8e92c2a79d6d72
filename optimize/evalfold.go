package optimize

// This file adapts the evaluator (package eval) to the Folder interface.

import (
	"fmt"

	"github.com/wolong-dev/wolong/eval"
	"github.com/wolong-dev/wolong/ir"
)

// evalFolder folds with the CPU reference evaluator; it caches one
// evaluator per model.
type evalFolder struct {
	m *ir.Model
	e *eval.Evaluator
}

func defaultFolder() Folder { return &evalFolder{} }

// foldEvalMax bounds the evaluator's memory for one folded tensor.
const foldEvalMax = 64 << 20

func (f *evalFolder) Fold(m *ir.Model, n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	if f.e == nil || f.m != m {
		f.m, f.e = m, eval.New(m, eval.Options{MaxMemory: foldEvalMax})
	}
	args := make([]eval.Value, len(in))
	for i, t := range in {
		if t == nil {
			continue
		}
		et, err := eval.FromIR(t, foldEvalMax)
		if err != nil {
			return nil, err
		}
		args[i] = et
	}
	outs, err := f.e.EvalNode(n, args)
	if err != nil {
		return nil, err
	}
	res := make([]*ir.Tensor, len(n.Outputs))
	for i, o := range n.Outputs {
		if o == nil {
			continue
		}
		if i >= len(outs) {
			return nil, fmt.Errorf("node %s: evaluator returned %d outputs", ir.NodeLabel(n), len(outs))
		}
		t, ok := outs[i].(*eval.Tensor)
		if !ok {
			return nil, fmt.Errorf("node %s: output %d is not a tensor", ir.NodeLabel(n), i)
		}
		it, err := t.ToIR(o.Name)
		if err != nil {
			return nil, err
		}
		res[i] = it
	}
	return res, nil
}
