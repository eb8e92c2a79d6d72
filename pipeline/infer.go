package pipeline

// This file implements the second stage: one shape inference of a copy
// of the loaded model, with the assumptions it makes stated.

import (
	"fmt"
	"sort"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate"
)

// InferOptions are the assumptions inference may add to the given shapes.
type InferOptions struct {
	// DefaultDims sets every symbolic dim of the inputs the given shapes
	// leave open, and every unnamed dynamic dim, to 1 (Inferred.Defaulted
	// lists them).
	DefaultDims bool
	// Batch, when > 0, sets dim 0 of the batch inputs to Batch (see
	// simulate.BatchInputs; a shape given for an input wins).
	Batch int64
	// Values are the values of small integer or bool inputs (a trip
	// count, a sample rate an If branches on), row-major, as a measuring
	// harness fed them (calibrate.Latency.InputValues): they propagate as
	// known values, so inference follows the branches the runtime took.
	Values map[string][]int64
	// InPlace infers the loaded model itself instead of a copy: for a
	// caller that reads the loaded model as loaded no more (no
	// InferGeneric, Exportable or Export after it), it saves a copy of
	// the graph. Loaded.Model is then Inferred.Model.
	InPlace bool
}

// Inferred is a copy of a loaded model with every value's type and shape
// inferred once, and the assumptions that inference made.
type Inferred struct {
	Loaded *Loaded
	// Model is a copy of Loaded.Model (sharing its weights) with types
	// inferred; valid while Loaded is open.
	Model *ir.Model
	// Result is what inference found (its diagnostics are the warnings).
	Result *ir.InferResult
	// Options are what the model was inferred with: the given shapes,
	// the defaults and the batch.
	Options ir.InferOptions
	// Defaulted lists what DefaultDims set, sorted ("N=1", "input x
	// unnamed dynamic dims=1 (shape [1,3])").
	Defaulted []string
	// Batch is InferOptions.Batch (0: the batch the shapes give).
	Batch int64
}

// ImportWarnings are the importer's warnings.
func (f *Inferred) ImportWarnings() []string { return f.Loaded.Warnings }

// InferWarnings are inference's diagnostics, one line each.
func (f *Inferred) InferWarnings() []string { return f.Result.Warnings() }

// Warnings are the import warnings, then inference's.
func (f *Inferred) Warnings() []string {
	return append(append([]string{}, f.ImportWarnings()...), f.InferWarnings()...)
}

// Specialized reports whether the shapes were fixed beyond what the
// model declares (given, defaulted or batched): a graph optimized with
// them may be valid only for those shapes.
func (f *Inferred) Specialized() bool {
	return len(f.Options.Dims) > 0 || len(f.Options.Inputs) > 0 || f.Batch > 0
}

// Infer infers the types of a copy of l's model with the given shapes
// and the assumptions opt allows: shapes are inferred once, l is left as
// it was.
func Infer(l *Loaded, opt InferOptions) (*Inferred, error) {
	return infer(l, l.Given, opt)
}

// InferGeneric infers a copy of l's model with no shape given or
// assumed: the model as valid for every value of its symbolic dims (what
// an exported model must stay).
func InferGeneric(l *Loaded) (*Inferred, error) {
	return infer(l, ir.InferOptions{}, InferOptions{})
}

func infer(l *Loaded, given ir.InferOptions, opt InferOptions) (*Inferred, error) {
	if opt.Batch < 0 {
		return nil, fmt.Errorf("batch %d must not be negative", opt.Batch)
	}
	m := l.Model
	if !opt.InPlace {
		var err error
		if m, err = ir.CloneModel(l.Model); err != nil {
			return nil, fmt.Errorf("%s: %v", l.Path, err)
		}
	}
	io := copyOptions(given)
	f := &Inferred{Loaded: l, Model: m, Batch: opt.Batch}
	if opt.DefaultDims {
		f.Defaulted = defaultSymbolicDims(m.Graph, io)
	}
	if opt.Batch > 0 {
		io.Inputs = simulate.BatchInputs(m.Graph, opt.Batch, io.Inputs)
	}
	if l.progress != nil {
		l.progress("inferring shapes of %s (%d nodes)", l.Path, len(m.Graph.Nodes))
	}
	io.Values = opt.Values
	io.Batch = opt.Batch
	f.Options = io
	f.Result = ir.InferModel(m, io)
	if err := checkSizes(f); err != nil {
		return nil, err
	}
	if err := checkBatchReshapes(f); err != nil {
		return nil, err
	}
	return f, nil
}

// copyOptions copies o's maps, so that adding defaults leaves o as it was.
func copyOptions(o ir.InferOptions) ir.InferOptions {
	c := ir.InferOptions{Dims: map[string]int64{}, Inputs: map[string]ir.Shape{}, MaxKnown: o.MaxKnown}
	for k, v := range o.Dims {
		c.Dims[k] = v
	}
	for k, v := range o.Inputs {
		c.Inputs[k] = v
	}
	return c
}

// defaultSymbolicDims sets every symbolic dim of g's inputs that io does
// not give to 1, and every unnamed dynamic dim of an input to 1 (through
// an input-shape override), and returns what it set, sorted.
func defaultSymbolicDims(g *ir.Graph, io ir.InferOptions) []string {
	seen := map[string]bool{}
	var names []string
	for _, in := range g.Inputs {
		if in.Const != nil {
			continue
		}
		t := declaredType(in)
		given := false
		if s, ok := io.Inputs[in.Name]; ok {
			t.Shape, given = s, true
		}
		unnamed := false
		for _, d := range t.Shape.Dims {
			if d.IsUnknown() {
				unnamed = true
			}
			if d.Sym == "" || seen[d.Sym] {
				continue
			}
			seen[d.Sym] = true
			if _, ok := io.Dims[d.Sym]; !ok {
				io.Dims[d.Sym] = 1
				names = append(names, d.Sym+"=1")
			}
		}
		if unnamed && !given && t.Kind == ir.KindTensor {
			s := t.Shape.Clone()
			for i, d := range s.Dims {
				if d.IsUnknown() {
					s.Dims[i] = ir.D(1)
				}
			}
			io.Inputs[in.Name] = s
			names = append(names, fmt.Sprintf("input %s unnamed dynamic dims=1 (shape %s)", in.Name, s))
		}
	}
	sort.Strings(names)
	return names
}
