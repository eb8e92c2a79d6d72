package pipeline

// This file refuses sizes no run can have: given dims that leave every
// input of the model empty (nothing to compute, so nothing to predict),
// and given dims that make a tensor larger than any machine or cluster
// holds. Both are usage errors (a *ShapeError), checked once after
// inference; a dim of 0 that empties only some inputs (an empty KV cache,
// past_sequence_length=0) stays allowed.

import (
	"fmt"
	"sort"
	"strings"

	"github.com/wolong-dev/wolong/ir"
)

// MaxTensorBytes is the largest tensor a given shape may make: 128 TiB,
// above the memory of any one machine (the largest CPU hosts hold tens
// of TB, a GPU under 200 GB; a model's tensors are per device even under
// --cluster), so a larger tensor is a mistyped dim, never a prediction
// to print.
const MaxTensorBytes = int64(1) << 47

// checkSizes refuses f's shapes when the given or defaulted dims leave
// every graph input empty, or make a value of the main graph hold more
// than MaxTensorBytes (or overflow).
func checkSizes(f *Inferred) error {
	given := givenText(f)
	if given == "" {
		return nil // the model's own shapes: nothing given to blame
	}
	g := f.Model.Graph
	inputs, empty := 0, 0
	for _, in := range g.Inputs {
		if in.Const != nil || !in.Type.IsTensor() {
			continue
		}
		n, ok := in.Type.Shape.NumElements()
		if !ok {
			continue
		}
		inputs++
		if n == 0 {
			empty++
		}
	}
	if inputs > 0 && empty == inputs {
		return &ShapeError{Source: given, Msg: "every input of the model is empty (a dim of 0): there is no work to predict; give dims >= 1", FixedDim: -1}
	}
	for _, n := range g.Nodes {
		for _, v := range n.Outputs {
			if err := checkValueSize(v, given); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkValueSize refuses v when its static size overflows or is over
// MaxTensorBytes.
func checkValueSize(v *ir.Value, given string) error {
	if v == nil || !v.Type.IsTensor() || !v.Type.Shape.IsStatic() {
		return nil
	}
	n, ok := v.Type.Shape.NumElements()
	b := n
	if ok && v.Type.DType.Valid() && v.Type.DType.Bits() > 0 {
		b = v.Type.DType.StorageBytes(n)
	}
	if ok && b >= 0 && b <= MaxTensorBytes {
		return nil
	}
	return &ShapeError{Source: given, Msg: fmt.Sprintf("value %q would be %s %s, over 128 TiB (more than any machine holds): an impossible size", v.Name, v.Type.DType, v.Type.Shape), FixedDim: -1}
}

// givenText names the dims and shapes f was given or defaulted with
// ("batch_size=0", "input x=1x3"), for messages; "" when none.
func givenText(f *Inferred) string {
	var parts []string
	for _, d := range f.Loaded.givenDims {
		parts = append(parts, d.source())
	}
	for _, in := range f.Loaded.givenInputs {
		parts = append(parts, in.source())
	}
	if f.Batch > 0 {
		parts = append(parts, fmt.Sprintf("batch %d", f.Batch))
	}
	if len(parts) == 0 && len(f.Options.Dims) > 0 {
		var names []string
		for k, v := range f.Options.Dims {
			names = append(names, fmt.Sprintf("%s=%d", k, v))
		}
		sort.Strings(names)
		parts = names
	}
	return strings.Join(parts, ", ")
}

// checkBatchReshapes refuses a batch (InferOptions.Batch) that a Reshape
// to a fixed target cannot take: the exporter fixed the batch there and
// its leading dim is not the batch (ir reads a leading 1 over one sample
// as the batch, InferResult.BatchReshapes). Costing such a model at the
// batch would mix batch sizes; a usage error instead.
func checkBatchReshapes(f *Inferred) error {
	r := f.Result.BatchRefused
	if len(r) == 0 {
		return nil
	}
	more := ""
	if len(r) > 3 {
		r, more = r[:3], fmt.Sprintf(" (and %d more)", len(r)-3)
	}
	return &ShapeError{Source: fmt.Sprintf("batch %d", f.Batch), FixedDim: -1,
		Msg: fmt.Sprintf("the model cannot take this batch: node %s%s, and that target's leading dim is not the batch; give the batch with --input or --dim on a model exported with a dynamic batch", strings.Join(r, "; node "), more)}
}

// BatchNotes say which fixed Reshape targets were read with the batch as
// their leading dim (for the assumptions).
func (f *Inferred) BatchNotes() []string { return f.Result.BatchReshapes }
