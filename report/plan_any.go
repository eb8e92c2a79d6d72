package report

// This file reads back any plan wolong optimize -o writes: the graph
// plan (Plan: an ONNX model's kernels and passes, with the cluster
// placement under --cluster) and the LLM training layout (LLMPlan, of
// optimize --llm). The two documents share no required key, so the kind
// is told by the keys the top-level object has; each is then decoded
// strictly into its own type.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/wolong-dev/wolong/internal/strictjson"
)

// PlanDoc is a plan read back: a *Plan or an *LLMPlan.
type PlanDoc interface {
	// Kind names the plan's kind: "graph" or "llm".
	Kind() string
}

// Kind of a graph plan.
func (p *Plan) Kind() string { return "graph" }

// Kind of an LLM plan.
func (p *LLMPlan) Kind() string { return "llm" }

// ReadAnyPlan decodes a plan written by wolong optimize -o, of any mode:
// an object with "kernels" is a graph plan (ReadPlan), one with
// "megatron_args" an LLM plan (ReadLLMPlan).
func ReadAnyPlan(r io.Reader) (PlanDoc, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxPlanSize+1))
	if err != nil {
		return nil, fmt.Errorf("plan: %v", err)
	}
	if len(data) > maxPlanSize {
		return nil, fmt.Errorf("plan: larger than %d MiB", maxPlanSize>>20)
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil {
		return ReadPlan(bytes.NewReader(data)) // its error names what is wrong
	}
	_, llm := keys["megatron_args"]
	_, graph := keys["kernels"]
	if llm && !graph {
		return ReadLLMPlan(bytes.NewReader(data))
	}
	return ReadPlan(bytes.NewReader(data))
}

// ReadLLMPlan decodes an LLM plan (optimize --llm -o) strictly: unknown
// fields and trailing data are errors, and so is a plan with no layout.
func ReadLLMPlan(r io.Reader) (*LLMPlan, error) {
	var p LLMPlan
	if err := strictjson.Decode(r, maxPlanSize, &p); err != nil {
		if errors.Is(err, strictjson.ErrTrailing) {
			return nil, errors.New("plan: trailing data after the plan object")
		}
		return nil, fmt.Errorf("plan: %v", err)
	}
	if p.LLMPlan == nil || p.LLMResult == nil {
		return nil, errors.New("plan: an LLM plan with no layout")
	}
	if p.TP < 1 || p.PP < 1 || p.DP < 1 {
		return nil, fmt.Errorf("plan: degrees tp %d pp %d dp %d must be >= 1", p.TP, p.PP, p.DP)
	}
	return &p, nil
}
