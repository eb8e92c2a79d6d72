package simulate_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate"
	"github.com/wolong-dev/wolong/simulate/hw"
)

func sumCauses(t *testing.T, r *simulate.Result) {
	t.Helper()
	var sum float64
	for _, p := range r.Breakdown() {
		if p.S < 0 || math.IsNaN(p.S) {
			t.Errorf("cause %s: %g s", p.Cause, p.S)
		}
		sum += p.S
	}
	if math.Abs(sum-r.TotalS) > 1e-3*r.TotalS {
		t.Errorf("causes sum to %g s, total %g s (%+.4f%%)", sum, r.TotalS, 100*(sum-r.TotalS)/r.TotalS)
	}
}

// The causes sum to the total on a family of generated models, on a GPU
// and a CPU, with one and several streams, in inference and training.
func TestBreakdownSumsToTotal(t *testing.T) {
	models := map[string]*ir.Model{
		"transformer": modelgen.Transformer(2, 2, 64, 256, 4, 1024),
		"resnet50":    modelgen.ResNet50(),
		"lstm":        modelgen.LSTM(8, 4, 64, 128),
		"chain":       modelgen.Chain(200, 64),
		"wide":        modelgen.Wide(300),
		"cnn":         modelgen.SampleCNN(),
	}
	for name, m := range models {
		ir.InferModel(m, ir.InferOptions{})
		for _, preset := range []string{"h100", "cpu-1t", "v100"} {
			h, err := hw.Preset(preset)
			if err != nil {
				t.Fatal(err)
			}
			for _, opt := range []simulate.Options{{}, {Streams: 4}, {Mode: simulate.Train}, {Streams: 2, Mode: simulate.Train}} {
				t.Run(fmt.Sprintf("%s/%s/%d/%s", name, preset, opt.Streams, opt.Mode), func(t *testing.T) {
					r, err := simulate.Run(m, h, opt)
					if err != nil {
						t.Fatal(err)
					}
					sumCauses(t, r)
				})
			}
		}
	}
}

// A big GEMM is compute-bound and a big Add memory-bound; their
// breakdowns say so, and their achieved fractions are the efficiencies.
func TestBreakdownBounds(t *testing.T) {
	h, _ := hw.Preset("h100")
	for _, tc := range []struct {
		m     *ir.Model
		cause string
	}{{modelgen.MLP(2048, 2), simulate.CauseCompute}, {modelgen.Chain(4, 1<<24), simulate.CauseMemory}} {
		ir.InferModel(tc.m, ir.InferOptions{Dims: map[string]int64{"N": 4096}})
		r, err := simulate.Run(tc.m, h, simulate.Options{})
		if err != nil {
			t.Fatal(err)
		}
		parts := r.Breakdown()
		top := parts[0]
		for _, p := range parts {
			if p.S > top.S {
				top = p
			}
		}
		if top.Cause != tc.cause {
			t.Errorf("%s: largest cause %s, want %s (%v)", tc.m.Graph.Name, top.Cause, tc.cause, parts)
		}
	}
}
