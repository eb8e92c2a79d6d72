package cmd

// This file wires `wolong optimize --cluster` with the LLM flags (issue
// 13): the training layout of a decoder transformer, given (--tp --pp
// ...) or searched (--strategy auto), predicted by profile's LLM planner
// and written as a plan (report.LLMPlan) to -o and stdout. optimize takes
// profile's training-layout flags but not its serving ones (its --output
// is the plan file); the graph passes' flags do not apply.

import (
	"fmt"
	"io"
	"strings"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/report"
	"github.com/wolong-dev/wolong/simulate"
	"github.com/wolong-dev/wolong/simulate/llm"
)

// notWithLLMPlan are optimize's graph flags, which the LLM planner does
// not read (profile's graph-level cluster flags are in notWithLLM).
var notWithLLMPlan = []string{"batch", "tf32", "passes", "disable-pass", "target", "verify-each", "emit-onnx", "external-data"}

// llmOptions types optimize's LLM flags: nil options (and no error) when
// none is given.
func (f *optimizeFlags) llmOptions(env *Env, args []string) (*OptimizeOptions, error) {
	// --output is the plan file here, --batch the graph's: neither is
	// serving's, so the LLM flags' checks do not see them
	llmChanged := func(name string) bool {
		switch name {
		case "serve", "prompt", "output", "batch":
			return false
		}
		return f.changed(name)
	}
	dt, err := parseFloatDType(f.dtype)
	if err != nil {
		return nil, err
	}
	lr, err := commandLLMRun("optimize", &f.llm, &f.cluster, args, 0, dt, 5, llmChanged)
	if lr == nil || err != nil {
		return nil, err
	}
	if n := firstChanged(f.changed, notWithLLMPlan); n != "" {
		return nil, Usagef("--%s does not apply to the LLM planner (--%s)", n, firstChanged(llmChanged, llmFlags))
	}
	format, err := parseFormat(f.format)
	if err != nil {
		return nil, err
	}
	if err := f.cluster.check(f.changed, ""); err != nil {
		return nil, err
	}
	h, err := resolveHW("--hw", f.hw)
	if err != nil {
		return nil, err
	}
	cr, err := f.cluster.run(h, simulate.Train, false)
	if err != nil {
		return nil, err
	}
	cr.LLM = lr
	mo, err := f.model.toOptions(env)
	if err != nil {
		return nil, err
	}
	path := ""
	if len(args) > 0 {
		path = args[0]
	}
	return &OptimizeOptions{PipelineOptions: PipelineOptions{Path: path, Model: mo, HW: h, Format: format}, Plan: f.plan, LLM: cr}, nil
}

// optimizeLLMRun predicts the layout (or searches for the fastest), writes
// the plan to -o when it fits and prints it; a layout that does not fit
// prints its breakdown, writes nothing and fails.
func optimizeLLMRun(env *Env, opts *OptimizeOptions) error {
	out := newOutputs(opts.Path)
	defer out.abort()
	if err := out.check("-o", opts.Plan); err != nil {
		return err
	}
	cr, lr := opts.LLM, opts.LLM.LLM
	t, assumptions, warnings, err := llmTransformer(&opts.Model, opts.Path, lr)
	if err != nil {
		return err
	}
	assumptions = append(append(assumptions, cr.Assumptions...), lr.Assumptions...)
	if t.Seq <= 0 && lr.Train.Seq == 0 {
		return Usagef("the model's sequence length is symbolic: give --seq N (or --dim NAME=N)")
	}
	c := cr.Cluster
	var res *llm.LLMResult
	what := ""
	if lr.Search != nil {
		s, err := llm.SearchLLM(t, c, *lr.Search)
		if err != nil {
			return layoutErr(err)
		}
		assumptions = append(assumptions, searchNote(s))
		if len(s.Best) > 0 {
			res = s.Best[0]
		} else if res = s.Smallest; res == nil {
			return fmt.Errorf("no layout of the %d GPUs was kept by the search", c.GPUs())
		} else {
			what = "no layout fits; the smallest layout, " + res.Layout() + ","
		}
	} else if res, err = llm.SimulateLLM(t, c, lr.Train); err != nil {
		return layoutErr(err)
	}
	if what == "" {
		what = "layout " + res.Layout()
	}
	p := report.NewLLMPlan(c, llm.NewLLMPlan(t, c, res, lr.Train.Framework), assumptions, warnings)
	if opts.Plan != "" && res.Memory.Fits {
		if err := out.write("-o", opts.Plan, func(w io.Writer) error { return report.WriteJSON(w, p) }); err != nil {
			return err
		}
		if err := out.commitSaying(env.Err); err != nil {
			return err
		}
	}
	return writeLLM(env, opts.Format, p, p.WriteText, p.Warnings, res.Memory, what)
}

// dtypeAliases are the short names of float types (fp8 is e4m3, the
// inference and Transformer Engine forward format; fp4 is e2m1).
var dtypeAliases = map[string]ir.DType{"fp32": ir.Float32, "fp64": ir.Float64, "fp16": ir.Float16, "bf16": ir.BFloat16,
	"fp8": ir.Float8E4M3FN, "e4m3": ir.Float8E4M3FN, "fp8e4m3": ir.Float8E4M3FN, "e5m2": ir.Float8E5M2, "fp4": ir.Float4E2M1, "nvfp4": ir.Float4E2M1, "mxfp4": ir.Float4E2M1}

// parseFloatDType types --dtype: "" is Undefined (the command's default),
// else a float type.
func parseFloatDType(s string) (ir.DType, error) {
	if s == "" {
		return ir.Undefined, nil
	}
	d, ok := ir.ParseDType(s)
	if a, alias := dtypeAliases[strings.ToLower(s)]; alias {
		d, ok = a, true
	}
	if !ok || !d.IsFloat() {
		return ir.Undefined, Usagef("--dtype %q: want a float type: fp32, fp16, bf16, fp8, fp4 (float32, float16, bfloat16, float8e4m3fn, float4e2m1, ...)", s)
	}
	return d, nil
}
