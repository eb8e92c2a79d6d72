package cmd

// This file runs `wolong profile --cluster` with LLM flags: it reads the
// decoder transformer from MODEL (llm.TransformerOf) or takes --llm's
// preset, runs the planner (SimulateLLM, SearchLLM or SimulateServe) and
// prints report.LLMProfile or report.ServeProfile. A layout that does not
// fit in GPU memory is printed with its breakdown and the command exits 1.

import (
	"cmp"
	"errors"
	"fmt"
	"io"

	"github.com/wolong-dev/wolong/pipeline"
	"github.com/wolong-dev/wolong/report"
	"github.com/wolong-dev/wolong/simulate/llm"
)

// llmTransformer returns the architecture the planner runs on: --llm's
// preset, or the one read from the model at path (a usage error when
// the graph is not a decoder transformer), with the assumptions and
// warnings reading it gave.
func llmTransformer(mo *ModelOptions, path string, lr *LLMRun) (*llm.Transformer, []string, []string, error) {
	if lr.Preset != nil {
		return lr.Preset, []string{"architecture: the --llm preset " + lr.Preset.Name}, nil, nil
	}
	f, err := mo.loadInferred(path, pipeline.InferOptions{})
	if err != nil {
		return nil, nil, nil, err
	}
	defer f.Loaded.Close()
	t, err := llm.TransformerOf(f.Model)
	var nt *llm.NotTransformerError
	if errors.As(err, &nt) {
		return nil, nil, nil, Usagef("%s: the LLM flags need a decoder transformer, and this graph is not one: %s (name an architecture with --llm PRESET)", path, nt.Reason)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	if t.Name == "" {
		t.Name = path
	}
	return t, []string{"architecture read from " + path + "'s graph (attention heads, weight shapes, sequence)"}, f.Warnings(), nil
}

// profileLLMRun plans the transformer's training step, search or serving
// on opts.Cluster and prints the report.
func profileLLMRun(env *Env, opts *ProfileOptions) error {
	cr, lr := opts.Cluster, opts.Cluster.LLM
	t, assumptions, warnings, err := llmTransformer(&opts.Model, opts.Path, lr)
	if err != nil {
		return err
	}
	assumptions = append(append(assumptions, cr.Assumptions...), lr.Assumptions...)
	if t.Seq <= 0 && lr.Serve != nil {
		// serving needs no trained length: the longest context it serves
		t.Seq = cmp.Or(lr.Serve.Prompt, llm.DefaultPrompt) + cmp.Or(lr.Serve.Output, llm.DefaultOutput)
		assumptions = append(assumptions, fmt.Sprintf("the model's sequence length is symbolic: %d (prompt + output)", t.Seq))
	}
	if t.Seq <= 0 && lr.Train.Seq == 0 {
		return Usagef("the model's sequence length is symbolic: give --seq N (or --dim NAME=N)")
	}
	c := cr.Cluster
	switch {
	case lr.Serve != nil && lr.Serve.Load != nil:
		return profileServeLoad(env, opts, t, assumptions, warnings)
	case lr.Serve != nil:
		run, r, err := serveRunOf(t, c, *lr.Serve, opts.WhatIf.Changes)
		if err != nil {
			return layoutErr(err)
		}
		if !r.Memory.Fits {
			env.warn(warnings)
			return serveNotFit(r)
		}
		p := report.NewServeProfile(r, assumptions, warnings)
		out, text, err := serveWhatIf(opts, run, r, p, assumptions, warnings)
		if err != nil {
			return err
		}
		return writeLLM(env, opts.Format, out, text, p.Warnings, r.Memory, "serving batch "+fmt.Sprint(r.Batch))
	case lr.Search != nil:
		s, err := llm.SearchLLM(t, c, *lr.Search)
		if err != nil {
			return layoutErr(err)
		}
		p := report.NewLLMSearchProfile(c, s, append(assumptions, searchNote(s)), warnings)
		if p == nil {
			return fmt.Errorf("no layout of the %d GPUs was kept by the search", c.GPUs())
		}
		return writeLLM(env, opts.Format, p, p.WriteText, p.Warnings, p.Memory, "no layout fits; the smallest layout, "+p.Layout()+",")
	}
	run, r, err := trainRunOf(t, c, lr.Train, opts.WhatIf.Changes)
	if err != nil {
		return layoutErr(err)
	}
	p := report.NewLLMProfile(run.C, r, assumptions, warnings)
	out, text, err := llmTrainWhatIf(opts, run, r, p, assumptions, warnings)
	if err != nil {
		return err
	}
	return writeLLM(env, opts.Format, out, text, p.Warnings, r.Memory, "layout "+r.Layout())
}

// searchNote is the assumption a --strategy auto search adds.
func searchNote(s *llm.SearchResult) string {
	return fmt.Sprintf("--strategy auto: %d layouts predicted, %d fit; the flags given fix their dimensions", s.Evaluated, s.Fitting)
}

// writeLLM prints report p (JSON or text) with warnings on stderr, then
// fails when m does not fit: the breakdown is printed either way, and the
// error says what did not fit (what) and by how much.
func writeLLM(env *Env, format report.Format, p any, text func(io.Writer) error, warnings []string, m llm.Memory, what string) error {
	env.warn(warnings)
	var err error
	if format == report.JSON {
		err = report.WriteJSON(env.Out, p)
	} else {
		err = text(env.Out)
	}
	if err != nil {
		return err
	}
	if !m.Fits {
		return fmt.Errorf("%s does not fit in GPU memory: %s", what, m)
	}
	return nil
}

// layoutErr makes the planner's refusal a usage error: its options come
// from the flags, and what it refuses is a layout the flags ask of this
// model and cluster (tp not dividing the heads, degrees that do not
// multiply to the GPUs, a global batch that does not split).
func layoutErr(err error) error { return Usagef("%v", err) }
