package report

import (
	"math"
	"testing"

	"github.com/wolong-dev/wolong/simulate/llm"
)

func checkCauses(t *testing.T, what string, cs []Cause, totalMs float64, eb *ErrorBand) {
	t.Helper()
	var sum float64
	for _, c := range cs {
		if c.Ms < 0 || c.Label == "" {
			t.Errorf("%s: cause %+v", what, c)
		}
		sum += c.Ms
	}
	if math.Abs(sum-totalMs) > 1e-3*totalMs {
		t.Errorf("%s: causes sum to %g ms, total %g ms", what, sum, totalMs)
	}
	if eb == nil || !(eb.Pct > 0) || eb.Source == "" || !(eb.LoMs < totalMs && eb.HiMs > totalMs) {
		t.Errorf("%s: error band %+v", what, eb)
	}
}

// The cluster and LLM predictions' causes sum to their step and carry a
// band; the LLM search's layouts each do.
func TestClusterAndLLMBreakdowns(t *testing.T) {
	p := NewClusterProfile("m.onnx", testCluster(t, "2x2", "tcp-25"), testResult(), nil, nil)
	checkCauses(t, "cluster", p.Breakdown, p.StepMs, p.ErrorBand)
	tr, _ := llm.TransformerPreset("llama3-70b")
	c := llmCluster(t, 8)
	s, err := llm.SearchLLM(tr, c, llm.SearchOptions{Base: llm.LLMOptions{GlobalBatch: 64}, Top: 3, TP: []int{8}, PP: []int{2, 4}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range s.Best {
		lp := NewLLMProfile(c, r, nil, nil)
		checkCauses(t, r.Layout(), lp.Breakdown, r.StepMs, lp.ErrorBand)
	}
}
