package optimize

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
)

// TestControlBodiesInnermostFirst: the driver visits every If/Loop/Scan
// body after the bodies nested in it, each named by its path of owner
// nodes and attributes.
func TestControlBodiesInnermostFirst(t *testing.T) {
	m := modelgen.NestedIfLoopScan(4, 8)
	var have []string
	bodies := controlBodies(m.Graph, nil)
	for k := range bodies {
		have = append(have, path(bodies, k))
	}
	want := []string{
		"If_1/then_branch/Loop_0/body/If_0/then_branch",
		"If_1/then_branch/Loop_0/body/If_0/else_branch",
		"If_1/then_branch/Loop_0/body",
		"If_1/then_branch/Scan_0/body",
		"If_1/then_branch",
		"If_1/else_branch",
	}
	if !slices.Equal(have, want) {
		t.Errorf("bodies:\n  %s\nwant\n  %s", strings.Join(have, "\n  "), strings.Join(want, "\n  "))
	}
	if hasControlFlow(modelgen.Chain(4, 8).Graph) {
		t.Error("a chain has no control flow")
	}
	n := &ir.Node{Op: "If", ID: 7}
	if l := ownerLabel(n); l != "If#7" {
		t.Errorf("unnamed owner %q, want If#7", l)
	}
}

// TestRewriteInBodyString: a rewrite made in a body prints its path first.
func TestRewriteInBodyString(t *testing.T) {
	r := Rewrite{Before: []string{"Conv_3", "Relu_4"}, After: []string{"fused_conv_0"}, Sep: "+", Remark: "r", Graph: "If_3/then_branch"}
	if s, want := r.String(), "If_3/then_branch: Conv_3 + Relu_4 -> fused_conv_0  (r)"; s != want {
		t.Errorf("have %q, want %q", s, want)
	}
}

// TestMainOnlyPasses: the passes that place or lower the main graph's
// kernels for a cluster do not run inside bodies; every other pass does.
func TestMainOnlyPasses(t *testing.T) {
	for _, p := range passes {
		if p.MainOnly != p.NeedsPlacer {
			t.Errorf("pass %s: MainOnly %v, NeedsPlacer %v", p.Name, p.MainOnly, p.NeedsPlacer)
		}
	}
}

// TestControlFlowModelsAtEveryLevel: every generated control-flow model
// optimizes at every level (and for ONNX Runtime at -O3) with the IR
// verified after each pass, gives the evaluator's outputs of the original,
// and at -O2 and above rewrites something inside a body, the rewrite
// naming its body; the driver leaves every value a body captures defined
// (ir.Verify checks the scopes).
func TestControlFlowModelsAtEveryLevel(t *testing.T) {
	for name, mk := range map[string]func() *ir.Model{
		"wakeword_if":         func() *ir.Model { return modelgen.WakeWordIf(16, 8) },
		"vad_sr_if":           func() *ir.Model { return modelgen.VADSampleRate(256, 0) },
		"vad_sr_const":        func() *ir.Model { return modelgen.VADSampleRate(256, 8000) },
		"decoder_past_if":     func() *ir.Model { return modelgen.DecoderPast(16) },
		"loop_rnn":            func() *ir.Model { return modelgen.LoopRNN(8, 16, 0) },
		"loop_rnn_trip4":      func() *ir.Model { return modelgen.LoopRNN(8, 16, 4) },
		"scan_gru":            func() *ir.Model { return modelgen.ScanGRU(8, 16, 0) },
		"scan_gru_t3":         func() *ir.Model { return modelgen.ScanGRU(8, 16, 3) },
		"nested_if_loop_scan": func() *ir.Model { return modelgen.NestedIfLoopScan(4, 8) },
	} {
		for _, level := range []int{0, 1, 2, 3, 4} {
			opt := Options{Level: min(level, MaxLevel), VerifyEach: true}
			if level == 4 {
				opt.Target = TargetORT
			}
			t.Run(fmt.Sprintf("%s/%d", name, level), func(t *testing.T) {
				orig, m := mk(), mk()
				res, err := Run(m, opt)
				if err != nil {
					t.Fatal(err)
				}
				inBody := 0
				for _, p := range res.Passes {
					for _, r := range p.Rewrites {
						if r.Graph != "" {
							inBody++
						}
					}
				}
				if level >= 2 && inBody == 0 && name != "vad_sr_const" {
					t.Error("no rewrite inside a body")
				}
				if why := compareRuns(t, orig, m, 5, 1e-4, 1e-5); why != "" {
					t.Logf("outputs not compared: %s", why)
				}
			})
		}
	}
}
