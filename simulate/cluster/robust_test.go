package cluster

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate"
)

// Bad options and degenerate models give errors (or declines), never
// panics.
func TestRobust(t *testing.T) {
	empty := &ir.Model{Opsets: []ir.OpsetID{{Domain: "", Version: 17}}, Graph: ir.NewGraph("empty")}
	pe, err := NewProfile(empty, gpuOf(t, "h100"), ProfileOptions{})
	if err != nil {
		t.Fatalf("empty model: %v", err)
	}
	p := profileOf(t, mlpRaw(ir.S("N"), 8, 256, false), "h100", 16)
	c := clusterOf(t, "2x2", "h100", "ib-hdr")
	one := clusterOf(t, "1x1", "h100", "ib-hdr")
	for _, tc := range []struct {
		name    string
		p       *Profile
		c       *Cluster
		opt     Options
		wantErr string // "" = must succeed; "decline" = a DeclineError
	}{
		{"empty model allreduce", pe, c, Options{Strategy: AllReduce}, ""},
		{"empty model ps", pe, c, Options{Strategy: PS}, ""},
		{"empty model pipeline", pe, c, Options{Strategy: Pipeline}, "decline"},
		{"empty model auto", pe, c, Options{}, ""},
		{"one GPU every strategy", p, one, Options{}, ""},
		{"one GPU pipeline", p, one, Options{Strategy: Pipeline}, ""},
		{"stages do not divide", p, c, Options{Strategy: Pipeline, Stages: 3}, "do not divide"},
		{"more micro-batches than batch", p, c, Options{Strategy: Pipeline, MicroBatches: 17}, "more than the batch"},
		{"two stages, two replicas", p, c, Options{Strategy: Pipeline, Stages: 2}, ""},
		{"inference pipeline", p, c, Options{Strategy: Pipeline, Mode: simulate.Inference}, ""},
		{"inference ps", p, c, Options{Strategy: PS, Mode: simulate.Inference}, ""},
		{"bad strategy", p, c, Options{Strategy: "gossip"}, "unknown strategy"},
		{"bad transport", p, c, Options{Transport: "smoke"}, "unknown transport"},
		{"bad mode", p, c, Options{Mode: "dream"}, "unknown mode"},
		{"bad schedule", p, c, Options{Strategy: Pipeline, Schedule: "zigzag"}, "unknown schedule"},
		{"bad algorithm", p, c, Options{Strategy: AllReduce, Algorithm: "tree"}, "unknown all-reduce"},
		{"negative stages", p, c, Options{Stages: -1}, ">= 0"},
		{"many shards", p, c, Options{Strategy: PS, PSShards: 64}, ""},
		{"tiny registered limit", p, c, Options{Strategy: PS, RegisteredLimitBytes: 1}, ""},
		{"nil profile", nil, c, Options{}, "no profile"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Simulate(tc.p, tc.c, tc.opt)
			switch {
			case tc.wantErr == "":
				if err != nil {
					t.Fatal(err)
				}
				if r.StepMs < 0 || r.StepMs != r.StepMs {
					t.Errorf("step %g", r.StepMs)
				}
			case tc.wantErr == "decline":
				var de *DeclineError
				if !errors.As(err, &de) {
					t.Fatalf("got %v, want a decline", err)
				}
			default:
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %v, want an error with %q", err, tc.wantErr)
				}
			}
			if tc.p != nil && tc.wantErr == "" {
				if _, err := Place(tc.p, tc.c, tc.opt); err != nil {
					t.Errorf("place: %v", err)
				}
			}
		})
	}
	if _, err := NewProfile(nil, gpuOf(t, "h100"), ProfileOptions{}); err == nil {
		t.Error("nil model accepted")
	}
	if _, err := NewProfile(empty, gpuOf(t, "h100"), ProfileOptions{Batch: -1}); err == nil {
		t.Error("negative batch accepted")
	}
}

// auto picks the highest predicted throughput of the strategies that
// apply.
func TestAutoPicksBest(t *testing.T) {
	p := profileOf(t, mlpRaw(ir.S("N"), 16, 2048, false), "p100", 256)
	for _, spec := range []string{"1x4", "4x1", "8x8"} {
		c := clusterOf(t, spec, "p100", "roce-25")
		a, err := Simulate(p, c, Options{})
		if err != nil {
			t.Fatal(err)
		}
		best := a.Throughput
		for _, s := range Strategies() {
			r, err := Simulate(p, c, Options{Strategy: s})
			var de *DeclineError
			if errors.As(err, &de) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Throughput > best*(1+1e-9) {
				t.Errorf("%s: auto picked %s at %g samples/s, %s gives %g", spec, a.Strategy, best, s, r.Throughput)
			}
		}
		if len(a.Candidates) != 3 {
			t.Errorf("%s: candidates %+v", spec, a.Candidates)
		}
		t.Logf("%s: auto -> %s (%+v)", spec, a.Strategy, a.Candidates)
	}
}

// A sweep of ResNet-50 on H100s (8 per machine, InfiniBand HDR), logged
// for the README's scaling table.
func TestSweepResNet50(t *testing.T) {
	if testing.Short() {
		t.Skip("sweep")
	}
	gpu := gpuOf(t, "h100")
	p, err := NewProfile(atBatch(loadShared(t, "onnx-node-tests/light/light_resnet50.onnx"), 64), gpu, ProfileOptions{Batch: 64})
	if err != nil {
		t.Fatal(err)
	}
	base := clusterOf(t, "1x8", "h100", "ib-hdr")
	pts, err := Sweep(p, base, []int{1, 2, 4, 8, 16, 32, 64, 128, 256, 512}, Options{Strategy: AllReduce})
	if err != nil {
		t.Fatal(err)
	}
	prev := 0.0
	for _, pt := range pts {
		t.Logf("%4d GPUs (%3dx%d): step %7.2f ms, %9.0f img/s, efficiency %.3f", pt.GPUs, pt.Machines, pt.GPUsPerMachine, pt.StepMs, pt.Throughput, pt.Efficiency)
		if pt.Throughput <= prev {
			t.Errorf("%d GPUs: throughput %g not above %g", pt.GPUs, pt.Throughput, prev)
		}
		prev = pt.Throughput
	}
}

// The JSON form carries the fields reports and scripts read.
func TestResultJSON(t *testing.T) {
	p := profileOf(t, mlpRaw(ir.S("N"), 8, 512, false), "h100", 16)
	r, err := Simulate(p, clusterOf(t, "2x2", "h100", "ib-hdr"), Options{Strategy: Pipeline, Stages: 4})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"step_ms", "compute_ms", "comm_ms", "bubble_ms", "efficiency", "links", "stages", "transports"} {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON lacks %q: %s", k, b)
		}
	}
	if m["step_ms"].(float64) != r.StepMs {
		t.Errorf("step_ms %v, want %g", m["step_ms"], r.StepMs)
	}
}
