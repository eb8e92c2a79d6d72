package pipeline

// This file runs models on the same inputs and compares their outputs
// element by element: wolong verify's library call. A model runs on
// wolong's evaluator, or, with VerifyOptions.ORT, both run in ONNX
// Runtime.

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/wolong-dev/wolong/eval"
	"github.com/wolong-dev/wolong/ir"
)

// Fill sets every element of an input to one value instead of random
// ones (a sample rate, a flag).
type Fill struct {
	Name, Value string
	Text        string // as given, for messages
}

// FillError is a fill the model cannot take: an input it lacks (Inputs
// lists those it has), an input of unknown shape (Unknown) or with a dim
// of no value (Type, Dim), a value its type cannot hold (Err, the
// evaluator's). It names the input, not the fill; a command adds how to
// give the shape.
type FillError struct {
	Fill    Fill
	Inputs  []string
	Unknown bool
	Type    string
	Dim     string
	Err     error
}

func (e *FillError) Error() string {
	name := e.Fill.Name
	switch {
	case e.Err != nil:
		return e.Err.Error()
	case e.Unknown:
		return fmt.Sprintf("the shape of %s is unknown", name)
	case e.Dim != "":
		return fmt.Sprintf("%s is %s: dim %s has no value", name, e.Type, e.Dim)
	}
	list := "none"
	if len(e.Inputs) > 0 {
		list = strings.Join(e.Inputs, ", ")
	}
	return fmt.Sprintf("the model has no input %s (its inputs: %s)", name, list)
}

func (e *FillError) Unwrap() error { return e.Err }

// ModelError is a failure to read inputs for, or to run, the model at
// Path. It prints as "PATH: cause"; a caller that phrases the cause
// (with the flag that changes it) reads Err.
type ModelError struct {
	Path string
	Err  error
}

func (e *ModelError) Error() string { return e.Path + ": " + e.Err.Error() }

func (e *ModelError) Unwrap() error { return e.Err }

// HarnessError is a failure of ONNX Runtime's harness (it cannot be
// installed or started, a model cannot be run, its outputs are not the
// model's): the runtime's side, not the model file's.
type HarnessError struct{ Err error }

func (e *HarnessError) Error() string { return e.Err.Error() }

func (e *HarnessError) Unwrap() error { return e.Err }

// ModelInputs returns the inputs of f's main graph: read from dir's
// input_N.pb files, else random values of the declared types (seed),
// then with fills set. source says where they came from ("DIR", "random
// inputs (seed N)", then each fill). maxMem bounds each input.
func ModelInputs(f *Inferred, dir string, seed uint32, fills []Fill, maxMem int64) (map[string]eval.Value, string, error) {
	var in map[string]eval.Value
	var err error
	source := dir
	if dir != "" {
		in, err = eval.ReadInputDir(f.Model.Graph, dir, maxMem)
	} else {
		in, err = eval.RandomInputs(f.Model.Graph, seed, maxMem)
		source = fmt.Sprintf("random inputs (seed %d)", seed)
	}
	if err != nil {
		return nil, "", &ModelError{Path: f.Model.Path, Err: err}
	}
	if err := ApplyFills(f, in, fills, maxMem); err != nil {
		return nil, "", err
	}
	for _, fl := range fills {
		source += ", " + fl.Text
	}
	return in, source, nil
}

// ApplyFills replaces the inputs fills name in inputs with tensors of the
// input's type and (inferred, concrete) shape holding the value; a fill
// the model cannot take is a *FillError.
func ApplyFills(f *Inferred, inputs map[string]eval.Value, fills []Fill, maxMem int64) error {
	var names []string
	byName := map[string]*ir.Value{}
	for _, in := range f.Model.Graph.Inputs {
		if in.Const == nil {
			names = append(names, in.Name)
			byName[in.Name] = in
		}
	}
	for _, fl := range fills {
		in := byName[fl.Name]
		if in == nil {
			return &FillError{Fill: fl, Inputs: names}
		}
		t := in.Type
		if !t.Shape.Known {
			return &FillError{Fill: fl, Unknown: true}
		}
		shape := make([]int, len(t.Shape.Dims))
		for i, d := range t.Shape.Dims {
			if !d.IsConcrete() {
				return &FillError{Fill: fl, Type: t.String(), Dim: d.String()}
			}
			shape[i] = int(d.Val)
		}
		v, err := eval.FilledTensor(t.DType, shape, fl.Value, maxMem)
		if err != nil {
			return &FillError{Fill: fl, Err: err}
		}
		inputs[fl.Name] = v
	}
	return nil
}

// VerifyOptions say which models Verify compares and how it runs them.
type VerifyOptions struct {
	// Paths are A and, when comparing two models, B.
	Paths []string
	// Load loads and infers one model for evaluation and returns it with
	// its warnings as the caller words them; Verify closes it.
	Load func(path string) (*Inferred, []string, error)
	// Warn receives each model's warnings once it is loaded, before it
	// runs (a run may fail because of what they say); with two models
	// each is prefixed with the model's path.
	Warn func([]string)
	// Run evaluates a model on its inputs (the caller's memory bound, time
	// limit and progress display); nil runs eval.Run with MaxMemory.
	Run func(f *Inferred, inputs map[string]eval.Value) ([]eval.Value, error)
	// InputDir holds input_N.pb files (and, with one model, the expected
	// output_N.pb); "" for random inputs of Seed.
	InputDir  string
	Seed      uint32
	Fills     []Fill
	MaxMemory int64
	Tolerance eval.Tolerance
	// ORT runs both models in ONNX Runtime instead of the evaluator;
	// Notice receives the harness's first-use install message.
	ORT    bool
	Notice io.Writer
}

// VerifiedOutput is one output compared.
type VerifiedOutput struct {
	Name string
	Type string // the expected value's type, e.g. "float32[1,1000]"
	eval.Diff
}

// Verification is what Verify found.
type Verification struct {
	Model     string         // A's path
	Tolerance eval.Tolerance // the tolerance compared with
	Against   string         // B's path, or "expected outputs in DIR"
	Inputs    string         // where the inputs came from (ModelInputs' source)
	Runtime   string         // what ran the models when not the evaluator
	Outputs   []VerifiedOutput
	OK        bool     // every output matched
	Warnings  []string // every model's, as passed to Warn
}

// Verify runs A and B (or A and the expected outputs in InputDir) on the
// same inputs and compares their outputs with Tolerance. A mismatch is
// not an error: the result says which outputs differ.
func Verify(opts VerifyOptions) (*Verification, error) {
	if opts.Run == nil {
		opts.Run = func(f *Inferred, in map[string]eval.Value) ([]eval.Value, error) {
			return eval.Run(f.Model, in, eval.Options{MaxMemory: opts.MaxMemory})
		}
	}
	paths := opts.Paths
	res := &Verification{Model: paths[0], Tolerance: opts.Tolerance}
	a, err := opts.load(res, 0)
	if err != nil {
		return nil, err
	}
	defer a.Loaded.Close()
	inputs, source, err := ModelInputs(a, opts.InputDir, opts.Seed, opts.Fills, opts.MaxMemory)
	if err != nil {
		return nil, err
	}
	res.Inputs = source
	if opts.ORT {
		return res, verifyORT(opts, res, a, inputs)
	}
	got, err := opts.Run(a, mine(a, inputs))
	if err != nil {
		return nil, &ModelError{Path: paths[0], Err: err}
	}
	var want []eval.Value
	if len(paths) == 2 {
		b, err := opts.loadSecond(res, a, inputs)
		if err != nil {
			return nil, err
		}
		defer b.Loaded.Close()
		if want, err = opts.Run(b, mine(b, inputs)); err != nil {
			return nil, &ModelError{Path: paths[1], Err: err}
		}
		res.Against = paths[1]
	} else {
		if want, err = expectedOutputs(a, opts.InputDir, opts.MaxMemory); err != nil {
			return nil, err
		}
		res.Against = "expected outputs in " + opts.InputDir
	}
	res.compare(a.Model.Graph, got, want, opts.Tolerance)
	return res, nil
}

// load loads Paths[i] and passes on its warnings.
func (opts *VerifyOptions) load(res *Verification, i int) (*Inferred, error) {
	f, ws, err := opts.Load(opts.Paths[i])
	if err != nil {
		return nil, err
	}
	if len(opts.Paths) == 2 {
		ws = prefixedWarnings(opts.Paths[i], ws)
	}
	if opts.Warn != nil {
		opts.Warn(ws)
	}
	res.Warnings = append(res.Warnings, ws...)
	return f, nil
}

// prefixedWarnings prefixes each warning with "prefix: ", after its
// "warning: " if it has one.
func prefixedWarnings(prefix string, ws []string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = prefix + ": " + strings.TrimPrefix(w, "warning: ")
	}
	return out
}

// mine keeps the inputs f's graph declares.
func mine(f *Inferred, inputs map[string]eval.Value) map[string]eval.Value {
	out := map[string]eval.Value{}
	for _, in := range f.Model.Graph.Inputs {
		if v, ok := inputs[in.Name]; ok {
			out[in.Name] = v
		}
	}
	return out
}

// expectedOutputs reads dir's output_N.pb, one per output of a.
func expectedOutputs(a *Inferred, dir string, maxMem int64) ([]eval.Value, error) {
	var want []eval.Value
	for i, o := range a.Model.Graph.Outputs {
		p := filepath.Join(dir, fmt.Sprintf("output_%d.pb", i))
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("%s holds no expected output_%d.pb for output %q: give a second model or the expected outputs", dir, i, o.Name)
		}
		v, err := eval.ReadValueFile(p, eval.KindOf(o), maxMem)
		if err != nil {
			return nil, err
		}
		want = append(want, v)
	}
	return want, nil
}

// loadSecond loads B and checks it reads only inputs A has and has as
// many outputs.
func (opts *VerifyOptions) loadSecond(res *Verification, a *Inferred, inputs map[string]eval.Value) (*Inferred, error) {
	b, err := opts.load(res, 1)
	if err != nil {
		return nil, err
	}
	pa, pb := opts.Paths[0], opts.Paths[1]
	for _, in := range b.Model.Graph.Inputs {
		if _, ok := inputs[in.Name]; !ok && in.Const == nil {
			b.Loaded.Close()
			return nil, fmt.Errorf("%s: input %q is not an input of %s", pb, in.Name, pa)
		}
	}
	if na, nb := len(a.Model.Graph.Outputs), len(b.Model.Graph.Outputs); na != nb {
		b.Loaded.Close()
		return nil, fmt.Errorf("%s has %s, %s has %d", pa, count(na, "output"), pb, nb)
	}
	return b, nil
}

// count is "1 output", "2 outputs".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// verifyORT runs A and B in ONNX Runtime on inputs and compares them.
func verifyORT(opts VerifyOptions, res *Verification, a *Inferred, inputs map[string]eval.Value) error {
	b, err := opts.loadSecond(res, a, inputs)
	if err != nil {
		return err
	}
	defer b.Loaded.Close()
	h, err := OpenORT(opts.Notice)
	if err != nil {
		return &HarnessError{err}
	}
	paths := opts.Paths
	outs, err := RunInORT(h, []ORTModel{{paths[0], a.Model.Graph, inputs}, {paths[1], b.Model.Graph, inputs}}, opts.MaxMemory)
	if err != nil {
		return &HarnessError{err}
	}
	n := len(a.Model.Graph.Outputs)
	for i, o := range outs {
		if o.Err != "" {
			return &HarnessError{fmt.Errorf("ONNX Runtime cannot run %s: %s", paths[i], o.Err)}
		}
		if len(o.Outputs) != n {
			return &HarnessError{fmt.Errorf("ONNX Runtime gave %d outputs for %s, want %d", len(o.Outputs), paths[i], n)}
		}
	}
	res.Against, res.Runtime = paths[1], ORTRuntime
	res.compare(a.Model.Graph, outs[0].Outputs, outs[1].Outputs, opts.Tolerance)
	return nil
}

// compare fills res with one row per output of g, got against want.
func (res *Verification) compare(g *ir.Graph, got, want []eval.Value, tol eval.Tolerance) {
	res.OK = true
	for i := range got {
		d := eval.Compare(got[i], want[i], tol)
		res.Outputs = append(res.Outputs, VerifiedOutput{Name: g.Outputs[i].Name, Type: TypeText(want[i]), Diff: d})
		res.OK = res.OK && d.OK()
	}
}

// TypeText is a value's type as verify and run print it.
func TypeText(v eval.Value) string {
	switch x := v.(type) {
	case *eval.Tensor:
		return x.String()
	case *eval.Sequence:
		return fmt.Sprintf("seq(%s) of %d", x.Elem, len(x.Items))
	case *eval.Optional:
		if x.Value == nil {
			return "optional (empty)"
		}
		return "optional(" + TypeText(x.Value) + ")"
	}
	return "?"
}
