package pipeline

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/eval"
)

// verifyOpts compares the sample CNN with itself; run, when set, runs B.
func verifyOpts(t *testing.T, runB func([]eval.Value) []eval.Value) (VerifyOptions, *[]string) {
	t.Helper()
	p := filepath.Join("..", "testdata", "models", "sample_cnn.onnx")
	var warned []string
	calls := 0
	return VerifyOptions{
		Paths: []string{p, p},
		Load: func(path string) (*Inferred, []string, error) {
			l, err := Load(path, LoadOptions{})
			if err != nil {
				return nil, nil, err
			}
			f, err := Infer(l, InferOptions{DefaultDims: true})
			if err != nil {
				l.Close()
				return nil, nil, err
			}
			return f, []string{"warning: w"}, nil
		},
		Warn: func(ws []string) { warned = append(warned, ws...) },
		Run: func(f *Inferred, in map[string]eval.Value) ([]eval.Value, error) {
			outs, err := eval.Run(f.Model, in, eval.Options{})
			if calls++; calls == 2 && runB != nil && err == nil {
				outs = runB(outs)
			}
			return outs, err
		},
		Seed:      1,
		Tolerance: eval.DefaultTolerance,
	}, &warned
}

// TestVerifyCompares: a model matches itself, with each model's warnings
// passed on prefixed by its path; a changed output of B is a mismatch in
// the result, not an error.
func TestVerifyCompares(t *testing.T) {
	opts, warned := verifyOpts(t, nil)
	res, err := Verify(opts)
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK || len(res.Outputs) == 0 || res.Against != opts.Paths[1] || !strings.HasPrefix(res.Inputs, "random inputs (seed 1)") {
		t.Fatalf("got %+v", res)
	}
	want := opts.Paths[0] + ": w"
	if len(*warned) != 2 || (*warned)[0] != want || len(res.Warnings) != 2 {
		t.Errorf("warnings %q (result %q), want twice %q", *warned, res.Warnings, want)
	}
	opts, _ = verifyOpts(t, func(outs []eval.Value) []eval.Value {
		x := outs[0].(*eval.Tensor).Clone()
		for i := range x.F {
			x.F[i] += 1
		}
		return append([]eval.Value{x}, outs[1:]...)
	})
	res, err = Verify(opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.OK || res.Outputs[0].OK() || res.Outputs[0].Mismatches == 0 || res.Outputs[0].Type == "" {
		t.Errorf("a changed output matched: %+v", res.Outputs[0])
	}
}

// TestVerifyErrors: a fill the model cannot take is a *FillError, a
// missing input folder a *ModelError naming the model; neither names a
// package.
func TestVerifyErrors(t *testing.T) {
	opts, _ := verifyOpts(t, nil)
	opts.Fills = []Fill{{Name: "nope", Value: "1", Text: "nope=1"}}
	_, err := Verify(opts)
	var fe *FillError
	if !errors.As(err, &fe) || fe.Fill.Name != "nope" || !strings.Contains(err.Error(), "the model has no input nope") {
		t.Errorf("fill: got %v, want a FillError", err)
	}
	opts, _ = verifyOpts(t, nil)
	opts.InputDir = filepath.Join(t.TempDir(), "none")
	_, err = Verify(opts)
	var me *ModelError
	if !errors.As(err, &me) || me.Path != opts.Paths[0] || !strings.HasPrefix(err.Error(), opts.Paths[0]+": ") {
		t.Errorf("inputs: got %v, want a ModelError naming the model", err)
	}
	if strings.Contains(err.Error(), "eval: ") || strings.Contains(err.Error(), "pipeline: ") {
		t.Errorf("%q names a package", err)
	}
}
