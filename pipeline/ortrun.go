package pipeline

// This file runs models in ONNX Runtime through the harness
// (internal/ortbench) on wolong's inputs and reads their outputs back as
// evaluator values: Verify with ORT set, and ValidateSpeedup's output
// check.

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/wolong-dev/wolong/eval"
	"github.com/wolong-dev/wolong/internal/ortbench"
	"github.com/wolong-dev/wolong/ir"
)

// ORTRuntime names the runtime of an ORT run in reports.
const ORTRuntime = "ONNX Runtime " + ortbench.Version + " (CPU, graph optimizations disabled, 1 thread)"

// ORTModel is one model to run: its file, its main graph (for its input
// names) and the values to feed, by input name.
type ORTModel struct {
	Path   string
	Graph  *ir.Graph
	Inputs map[string]eval.Value
}

// ORTOutcome is what ONNX Runtime did with one model: its outputs in graph
// order, or its one-line refusal.
type ORTOutcome struct {
	Outputs []eval.Value
	Err     string
}

// OpenORT opens the harness (installing onnxruntime-node into the user's
// cache on first use, saying so on notice).
func OpenORT(notice io.Writer) (*ortbench.Harness, error) {
	return ortbench.Open(context.Background(), ortbench.Options{Notice: notice})
}

// RunInORT runs every model once in ONNX Runtime (one node process),
// each on its inputs, and returns one outcome per model. maxMem bounds
// each output read back. A value shared by several models is written once.
func RunInORT(h *ortbench.Harness, models []ORTModel, maxMem int64) ([]ORTOutcome, error) {
	dir, err := os.MkdirTemp("", "wolong-ort-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	written := map[*eval.Tensor]ortbench.RunInput{}
	jobs := make([]ortbench.RunJob, len(models))
	for i, m := range models {
		jobs[i] = ortbench.RunJob{Model: absPath(m.Path), Out: fmt.Sprintf("model%d", i)}
		for _, in := range m.Graph.Inputs {
			if in.Const != nil {
				continue
			}
			v, ok := m.Inputs[in.Name]
			if !ok {
				return nil, fmt.Errorf("%s: no value for input %q", m.Path, in.Name)
			}
			t, isT := v.(*eval.Tensor)
			if !isT {
				return nil, fmt.Errorf("%s: input %q is not a tensor: ONNX Runtime runs take tensors", m.Path, in.Name)
			}
			ri, ok := written[t]
			if !ok {
				it, err := t.ToIR(in.Name)
				if err != nil {
					return nil, err
				}
				if ri, err = ortbench.WriteInput(dir, fmt.Sprintf("%d-%s", len(written), in.Name), it); err != nil {
					return nil, err
				}
				written[t] = ri
			}
			ri.Name = in.Name
			jobs[i].Inputs = append(jobs[i].Inputs, ri)
		}
	}
	res, err := h.RunModels(context.Background(), dir, jobs, ortbench.RunOptions{})
	if err != nil {
		return nil, err
	}
	out := make([]ORTOutcome, len(models))
	for i := range res {
		r := &res[i]
		if r.Error != "" {
			out[i].Err = r.Error
			continue
		}
		for _, o := range r.Outputs {
			t, err := r.Tensor(o)
			if err == nil {
				var v *eval.Tensor
				if v, err = eval.FromIR(t, maxMem); err == nil {
					out[i].Outputs = append(out[i].Outputs, v)
					continue
				}
			}
			out[i].Err = err.Error()
			break
		}
	}
	return out, nil
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// MakeInput makes one input of dtype and shape: filled with a constant
// when fill is given (sample rates, sequence lengths), else random values
// from r.
func MakeInput(r *eval.Rand, dtype string, shape []int, fill *float64) (eval.Value, error) {
	dt, ok := ir.ParseDType(dtype)
	if !ok {
		return nil, fmt.Errorf("dtype %q", dtype)
	}
	if fill == nil {
		return eval.RandomTensor(r, dt, shape, 1<<30)
	}
	t := &ir.Tensor{DType: dt}
	n := 1
	for _, d := range shape {
		t.Dims = append(t.Dims, int64(d))
		n *= d
	}
	for i := 0; i < n; i++ {
		switch {
		case dt == ir.Float32:
			t.SetFloats(append(t.Floats(), float32(*fill)))
		case dt == ir.Int64:
			t.SetInt64s(append(t.Int64s(), int64(*fill)))
		case dt.IsInt() || dt == ir.Bool:
			t.SetInt32s(append(t.Int32s(), int32(*fill)))
		default:
			return nil, fmt.Errorf("a constant fill of %s", dt)
		}
	}
	return eval.FromIR(t, 1<<30)
}
