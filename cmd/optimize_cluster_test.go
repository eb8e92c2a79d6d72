package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/importer"
)

// clusterPlan is the part of plan.json / the JSON output the tests read.
type clusterPlan struct {
	Passes []struct {
		Name     string          `json:"name"`
		Rewrites json.RawMessage `json:"rewrites"`
	} `json:"passes"`
	Warnings  []string `json:"warnings"`
	Placement *struct {
		Strategy string `json:"strategy"`
		Cluster  string `json:"cluster"`
		Nodes    []struct {
			Node       string `json:"node"`
			Replicated bool   `json:"replicated"`
			Device     *struct {
				Machine, GPU int
			} `json:"device"`
		} `json:"nodes"`
		Transfers []struct {
			Kind      string  `json:"kind"`
			Tensor    string  `json:"tensor"`
			Bytes     float64 `json:"bytes"`
			From      string  `json:"from"`
			To        string  `json:"to"`
			Mechanism string  `json:"mechanism"`
		} `json:"transfers"`
		Buffers         []json.RawMessage `json:"buffers"`
		RegisteredBytes []float64         `json:"registered_bytes"`
		LimitBytes      float64           `json:"limit_bytes"`
	} `json:"placement"`
}

func TestOptimizeCluster(t *testing.T) {
	model := shared(t, "onnx-node-tests", "light", "light_resnet50.onnx")
	cases := []struct {
		strategy string
		check    func(t *testing.T, p *clusterPlan)
	}{
		{"pipeline", func(t *testing.T, p *clusterPlan) {
			writes, devices := 0, map[string]bool{}
			for _, x := range p.Placement.Transfers {
				if x.Mechanism == "rdma-write" && x.Bytes > 0 {
					writes++
				}
			}
			for _, n := range p.Placement.Nodes {
				if n.Device == nil || n.Replicated {
					t.Fatalf("pipeline node %s has no device", n.Node)
				}
				devices[n.Node] = true
			}
			if writes == 0 {
				t.Errorf("no rdma-write transfer across machines: %+v", p.Placement.Transfers)
			}
			reg := 0.0
			for _, b := range p.Placement.RegisteredBytes {
				reg += b
			}
			if reg <= 0 || reg > p.Placement.LimitBytes*2 || len(p.Placement.Buffers) == 0 {
				t.Errorf("registered %g bytes (limit %g) in %d buffers", reg, p.Placement.LimitBytes, len(p.Placement.Buffers))
			}
		}},
		{"allreduce", func(t *testing.T, p *clusterPlan) {
			for _, n := range p.Placement.Nodes {
				if !n.Replicated || n.Device != nil {
					t.Fatalf("data-parallel node %s is not replicated", n.Node)
				}
			}
			grads := 0
			for _, x := range p.Placement.Transfers {
				if strings.HasPrefix(x.Kind, "activation") {
					t.Errorf("allreduce cut an edge: %+v", x)
				}
				if x.Kind == "all-reduce" && strings.Contains(x.Tensor, "gradients") {
					grads++
				}
			}
			if grads == 0 {
				t.Errorf("no gradient transfers: %+v", p.Placement.Transfers)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.strategy, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "plan.json")
			out, errs, code := run("optimize", model, "--cluster", "2x2", "--strategy", tc.strategy, "-o", file, "--format", "json")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			var stdout, plan clusterPlan
			if err := json.Unmarshal([]byte(out), &stdout); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &plan); err != nil {
				t.Fatal(err)
			}
			for _, p := range []*clusterPlan{&stdout, &plan} {
				if p.Placement == nil {
					t.Fatal("no placement")
				}
				if p.Placement.Strategy != tc.strategy || p.Placement.Cluster != "2x2" {
					t.Fatalf("placement %s on %s", p.Placement.Strategy, p.Placement.Cluster)
				}
				tc.check(t, p)
			}
			// the rdma pass ran: transfer nodes under pipeline, none otherwise
			rewrites := -1
			for _, p := range stdout.Passes {
				if p.Name == "rdma" {
					if err := json.Unmarshal(p.Rewrites, &rewrites); err != nil {
						t.Fatal(err)
					}
				}
			}
			if (tc.strategy == "pipeline") != (rewrites > 0) || rewrites < 0 {
				t.Errorf("rdma pass rewrites %d under %s", rewrites, tc.strategy)
			}
		})
	}
}

func TestOptimizeClusterText(t *testing.T) {
	model := shared(t, "onnx-node-tests", "light", "light_resnet50.onnx")
	out, errs, code := run("optimize", model, "--cluster", "2x2", "--strategy", "pipeline")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"placement: pipeline on 2x2", "rdma-write", "registered:", "fallbacks:  none"} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
	out, errs, code = run("explain", model, "--cluster", "2x2", "--strategy", "pipeline", "--pass", "rdma")
	if code != 0 {
		t.Fatalf("explain exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "-> rdmawrite_") || !strings.Contains(out, "rdma-write") {
		t.Errorf("explain lists no transfer rewrites:\n%s", out)
	}
}

func TestOptimizeClusterEmitONNX(t *testing.T) {
	model := shared(t, "onnx-node-tests", "light", "light_resnet50.onnx")
	dir := t.TempDir()
	onnx := filepath.Join(dir, "out.onnx")
	out, errs, code := run("optimize", model, "--cluster", "2x2", "--strategy", "pipeline", "--emit-onnx", onnx, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r clusterPlan
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	warned := false
	for _, w := range r.Warnings {
		warned = warned || strings.Contains(w, "--emit-onnx with --cluster")
	}
	if !warned {
		t.Errorf("no --emit-onnx warning in %q", r.Warnings)
	}
	m, err := importer.Load(onnx, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for _, n := range m.Graph.Nodes {
		if n.Op == "RdmaWrite" || n.Op == "RdmaRead" || n.Op == "Copy" {
			t.Errorf("transfer node %s (%s) leaked into the ONNX model", n.Name, n.Op)
		}
	}
}

func TestOptimizeClusterUsage(t *testing.T) {
	model := shared(t, "onnx-node-tests", "light", "light_resnet50.onnx")
	for _, args := range [][]string{
		{"--strategy", "pipeline"},                    // needs --cluster
		{"--cluster", "2x2", "--sweep", "gpus=1,2"},   // a profile flag
		{"--cluster", "2x2", "--strategy", "bogus"},   // unknown strategy
		{"--cluster", "2x2", "--transport", "pigeon"}, // unknown transport
	} {
		_, errs, code := run(append([]string{"optimize", model}, args...)...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, errs)
		}
	}
}
