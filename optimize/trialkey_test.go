package optimize

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
)

// loopKey parses a one-loop model from the template below (body is the
// loop body's nodes computing %h2 from %h; consts are extra main-graph
// constants) and returns the trial key of its Loop.
func loopKey(t *testing.T, consts, body string) (string, bool) {
	t.Helper()
	src := fmt.Sprintf(`model ir_version=8 opsets={ai.onnx:17}
graph g(%%x: float32[4], %%h0: float32[4]) {
  %%trip = const int64[] [3]
%s
  %%hN = Loop(%%trip, _, %%h0)  # Loop_0 : float32[4]
    body: body(%%i: int64[], %%c: bool[], %%h: float32[4]) {
%s
      %%co = Identity(%%c)  # Identity_0 : bool[]
      return %%co, %%h2
    }
  return %%hN
}
`, consts, body)
	m, err := ir.Parse(src)
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	ir.InferModel(m, ir.InferOptions{})
	var loop *ir.Node
	for _, n := range m.Graph.Nodes {
		if n.Is(ir.OpLoop) {
			loop = n
		}
	}
	em, _, err := ir.ExtractModel(m, loop)
	if err != nil {
		t.Fatal(err)
	}
	return trialKey(em, nil)
}

// TestTrialKey: loops share a key exactly when no decision can tell them
// apart: names and the values of weights only multiplied or added do not
// count; ops, scalars, all-equal tensors, data an opaque op reads, and
// which weights are equal do.
func TestTrialKey(t *testing.T) {
	const mulTanh = "      %a = Mul(%h, %w)  # Mul_0 : float32[4]\n      %h2 = Tanh(%a)  # Tanh_0 : float32[4]"
	w := func(vals string) string { return "  %w = const float32[4] [" + vals + "]" }
	for _, tc := range []struct {
		name                   string
		consts1, body1         string
		consts2, body2         string
		same, memoized1, memo2 bool
	}{
		{"weights' values", w("1,2,3,4"), mulTanh, w("5,6,7,8"), mulTanh, true, true, true},
		{"names", w("1,2,3,4"), mulTanh, "  %v = const float32[4] [5,6,7,8]",
			"      %p = Mul(%h, %v)  # other : float32[4]\n      %h2 = Tanh(%p)  # name : float32[4]", true, true, true},
		{"op", w("1,2,3,4"), mulTanh, w("1,2,3,4"), strings.Replace(mulTanh, "Tanh(", "Sigmoid(", 1), false, true, true},
		{"all-equal weight", w("1,1,1,1"), mulTanh, w("2,2,2,2"), mulTanh, false, true, true},
		{"all-equal or not", w("1,1,1,1"), mulTanh, w("1,2,3,4"), mulTanh, false, true, true},
		{"scalar", "  %w = const float32[] [1]", mulTanh, "  %w = const float32[] [2]", mulTanh, false, true, true},
		{"read by an opaque op", w("1,2,3,4"), "      %a = Foo(%h, %w)  # Foo_0 : float32[4]\n      %h2 = Tanh(%a)  # Tanh_0 : float32[4]",
			w("5,6,7,8"), "      %a = Foo(%h, %w)  # Foo_0 : float32[4]\n      %h2 = Tanh(%a)  # Tanh_0 : float32[4]", false, true, true},
		{"equal weights or not", w("1,2,3,4") + "\n  %u = const float32[4] [1,2,3,4]",
			"      %a = Mul(%h, %w)  # Mul_0 : float32[4]\n      %h2 = Add(%a, %u)  # Add_0 : float32[4]",
			w("1,2,3,4") + "\n  %u = const float32[4] [1,2,3,5]",
			"      %a = Mul(%h, %w)  # Mul_0 : float32[4]\n      %h2 = Add(%a, %u)  # Add_0 : float32[4]", false, true, true},
		{"a constant-only node", w("1,2,3,4"), "      %k = Add(%w, %w)  # Add_0 : float32[4]\n      %h2 = Mul(%h, %k)  # Mul_0 : float32[4]",
			w("1,2,3,4"), mulTanh, false, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k1, ok1 := loopKey(t, tc.consts1, tc.body1)
			k2, ok2 := loopKey(t, tc.consts2, tc.body2)
			if ok1 != tc.memoized1 || ok2 != tc.memo2 {
				t.Fatalf("memoized %v, %v; want %v, %v", ok1, ok2, tc.memoized1, tc.memo2)
			}
			if ok1 && ok2 && (k1 == k2) != tc.same {
				t.Errorf("same key %v, want %v", k1 == k2, tc.same)
			}
		})
	}
}

// tanhLoops predicts 1 ms plus, for each Loop, 1 ms when its body holds
// a Tanh and -1 ms when not: unrolling pays for Tanh bodies only. It
// counts its calls.
type tanhLoops struct{ calls *atomic.Int64 }

func (p tanhLoops) Predict(m *ir.Model) (Prediction, error) {
	p.calls.Add(1)
	ms := 1.0
	m.Graph.Walk(func(g *ir.Graph) bool {
		for _, n := range g.Nodes {
			if !n.Is(ir.OpLoop) {
				continue
			}
			d := -1.0
			for _, b := range n.AttrGraph("body").Nodes {
				if b.Op == "Tanh" {
					d = 1
				}
			}
			ms += d
		}
		return true
	})
	return Prediction{TotalMs: ms, Nodes: len(m.Graph.Nodes)}, nil
}

// TestTrialMemo: on a chain of loops of one structure (each with its own
// weight) and one loop of another, optimize with the memo gives the model,
// rewrites and refusals it gives without, making one trial per structure.
func TestTrialMemo(t *testing.T) {
	run := func(memo bool) (string, string, int64) {
		defer func(old bool) { memoTrials = old }(memoTrials)
		memoTrials = memo
		m := modelgen.Control(80) // 8 blocks, each an If and a Loop
		loops := 0
		for _, n := range m.Graph.Nodes {
			if n.Is(ir.OpLoop) {
				if loops++; loops == 3 {
					for _, b := range n.AttrGraph("body").Nodes {
						if b.Op == "Tanh" {
							b.Op = "Sigmoid"
						}
					}
				}
			}
		}
		var calls atomic.Int64
		res, err := Run(m, Options{Level: MaxLevel, VerifyEach: true, Refusals: true, Predictor: tanhLoops{&calls}})
		if err != nil {
			t.Fatal(err)
		}
		var log strings.Builder
		for _, p := range res.Passes {
			for _, r := range p.Rewrites {
				fmt.Fprintf(&log, "%s: %v -> %v: %s\n", p.Name, r.Before, r.After, r.Remark)
			}
		}
		for _, r := range res.Refusals {
			fmt.Fprintf(&log, "refused: %+v\n", r)
		}
		return sprint(t, m), log.String(), calls.Load()
	}
	m1, log1, calls1 := run(true)
	m0, log0, calls0 := run(false)
	if m1 != m0 {
		t.Errorf("the memo changed the model")
	}
	if log1 != log0 {
		t.Errorf("the memo changed the report:\n%s\nwithout:\n%s", log1, log0)
	}
	if !strings.Contains(log0, "unrolled") || !strings.Contains(log0, "left rolled") {
		t.Errorf("want both decisions in the report:\n%s", log0)
	}
	// 8 loops, 2 structures: 6 trials of 2 predictions saved.
	if calls0-calls1 != 12 {
		t.Errorf("predictions %d with the memo, %d without; want 12 fewer", calls1, calls0)
	}
}
