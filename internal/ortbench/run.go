package ortbench

// This file runs models once in ONNX Runtime on given inputs and reads
// their outputs back (js/run.mjs), for comparing models.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/wolong-dev/wolong/ir"
)

// RunInput is one model input of a run: its element type, shape and the
// file holding its packed elements (WriteInput writes it).
type RunInput struct {
	Name  string  `json:"name"`
	DType string  `json:"dtype"`
	Shape []int64 `json:"shape"`
	File  string  `json:"file"`
}

// RunJob is one model to run.
type RunJob struct {
	Model  string     `json:"model"` // absolute path
	Inputs []RunInput `json:"inputs"`
	Out    string     `json:"out"` // name of the result files in the output folder
}

// RunOutput is one output ONNX Runtime computed.
type RunOutput struct {
	Name  string  `json:"name"`
	DType string  `json:"dtype"`
	Dims  []int64 `json:"dims"`
	File  string  `json:"file"` // in the output folder
}

// RunResult is what ONNX Runtime did with one job: its outputs, or the
// one-line error with which it refused to load or run the model.
type RunResult struct {
	Model   string      `json:"model"`
	Error   string      `json:"error,omitempty"`
	Outputs []RunOutput `json:"outputs,omitempty"`
	dir     string
}

// RunOptions says how to run.
type RunOptions struct {
	Level   string // graph optimization level (default "disabled")
	Threads int    // intra-op threads (default 1)
	// Line receives each line the script prints (one per model).
	Line func(string)
}

// RunModels runs every job once, in one node process, and returns one
// result per job, in order. A model ONNX Runtime refuses is a result with
// Error, not an error; an error means the harness itself failed.
func (h *Harness) RunModels(ctx context.Context, outDir string, jobs []RunJob, opt RunOptions) ([]RunResult, error) {
	if opt.Level == "" {
		opt.Level = "disabled"
	}
	if opt.Threads <= 0 {
		opt.Threads = 1
	}
	spec, err := json.Marshal(struct {
		Level   string   `json:"level"`
		Threads int      `json:"threads"`
		Models  []RunJob `json:"models"`
	}{opt.Level, opt.Threads, jobs})
	if err != nil {
		return nil, err
	}
	specFile := filepath.Join(outDir, "run-spec.json")
	if err := os.WriteFile(specFile, spec, 0o644); err != nil {
		return nil, fmt.Errorf("%v", err)
	}
	cmd := exec.CommandContext(ctx, h.Node, h.Runner, specFile, outDir)
	cmd.Env = append(os.Environ(), "WOLONG_ORT_HOME="+h.Dir)
	out, err := cmd.Output()
	if opt.Line != nil {
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			opt.Line(l)
		}
	}
	if err != nil {
		msg := err.Error()
		if ee, ok := err.(*exec.ExitError); ok && len(ee.Stderr) > 0 {
			msg = lastLine(string(ee.Stderr))
		}
		return nil, fmt.Errorf("node run.mjs: %s", msg)
	}
	res := make([]RunResult, len(jobs))
	for i, j := range jobs {
		b, err := os.ReadFile(filepath.Join(outDir, j.Out+".json"))
		if err != nil {
			return nil, fmt.Errorf("no result for %s: %v", j.Model, err)
		}
		if err := json.Unmarshal(b, &res[i]); err != nil {
			return nil, fmt.Errorf("result of %s: %v", j.Model, err)
		}
		res[i].dir = outDir
	}
	return res, nil
}

// WriteInput writes t's elements into dir as input name of a run.
func WriteInput(dir, name string, t *ir.Tensor) (RunInput, error) {
	in := RunInput{Name: name, DType: t.DType.String(), Shape: append([]int64{}, t.Dims...),
		File: filepath.Join(dir, fmt.Sprintf("input-%x.bin", name))}
	var data []byte
	if t.DType == ir.String {
		ss := make([]string, len(t.Strings()))
		for i, s := range t.Strings() {
			ss[i] = string(s)
		}
		data, _ = json.Marshal(ss)
	} else {
		var err error
		if data, err = t.Packed(1 << 40); err != nil {
			return in, err
		}
		if data == nil {
			return in, fmt.Errorf("input %s has no packed data", name)
		}
	}
	return in, os.WriteFile(in.File, data, 0o644)
}

// Tensor reads output o of r back as a tensor (packed Raw, or Strings).
func (r *RunResult) Tensor(o RunOutput) (*ir.Tensor, error) {
	dt, ok := ir.ParseDType(o.DType)
	if o.DType == "string" {
		dt, ok = ir.String, true
	}
	if !ok {
		return nil, fmt.Errorf("output %s has element type %q", o.Name, o.DType)
	}
	b, err := os.ReadFile(filepath.Join(r.dir, o.File))
	if err != nil {
		return nil, fmt.Errorf("output %s: %v", o.Name, err)
	}
	t := &ir.Tensor{Name: o.Name, DType: dt, Dims: o.Dims}
	if dt == ir.String {
		var ss []string
		if err := json.Unmarshal(b, &ss); err != nil {
			return nil, fmt.Errorf("output %s: %v", o.Name, err)
		}
		for _, s := range ss {
			t.SetStrings(append(t.Strings(), []byte(s)))
		}
		return t, nil
	}
	n, ok := t.NumElements()
	if !ok || dt.StorageBytes(n) != int64(len(b)) {
		return nil, fmt.Errorf("output %s: %d bytes for %s%v", o.Name, len(b), o.DType, o.Dims)
	}
	t.Raw = b
	return t, nil
}
