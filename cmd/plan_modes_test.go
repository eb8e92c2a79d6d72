package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/ir"
)

// TestPlanEveryModeReadsBack writes a plan with every optimize mode (a
// model's graph plan, each --cluster strategy, an LLM layout), reads it
// back with plan show (table and JSON) and checks the JSON plan show
// re-emits equals the file, losslessly (issue 26 item 1).
func TestPlanEveryModeReadsBack(t *testing.T) {
	model := filepath.Join("..", "testdata", "models", "sample_cnn.onnx")
	for _, tc := range []struct {
		name string
		args []string
		want string // in plan show's table
	}{
		{"graph", []string{"optimize", model, "--dim", "N=1"}, "slowest"},
		{"cluster-ps", []string{"optimize", model, "--dim", "N=1", "--cluster", "2x2", "--strategy", "ps"}, "slowest"},
		{"cluster-allreduce", []string{"optimize", model, "--dim", "N=1", "--cluster", "2x2", "--strategy", "allreduce"}, "slowest"},
		{"cluster-pipeline", []string{"optimize", model, "--dim", "N=1", "--cluster", "2x1", "--strategy", "pipeline"}, "slowest"},
		{"cluster-auto", []string{"optimize", model, "--dim", "N=1", "--cluster", "2x2", "--strategy", "auto"}, "slowest"},
		{"llm", []string{"optimize", "--llm", "gpt3-1.3b", "--cluster", "1x8", "--hw", "a100", "--tp", "2", "--pp", "2", "--global-batch", "16"}, "Pipeline stages"},
		{"llm-auto", []string{"optimize", "--llm", "llama3-70b", "--cluster", "64x8", "--hw", "h100", "--strategy", "auto", "--global-batch", "1024"}, "Pipeline stages"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan := filepath.Join(t.TempDir(), "plan.json")
			if _, errs, code := run(append(tc.args, "-o", plan)...); code != 0 {
				t.Fatalf("optimize: exit %d: %s", code, errs)
			}
			out, errs, code := run("plan", "show", plan)
			if code != 0 || !strings.Contains(out, tc.want) {
				t.Fatalf("plan show: exit %d, stderr %q, out:\n%s", code, errs, out)
			}
			js, errs, code := run("plan", "show", plan, "--format", "json")
			file, _ := os.ReadFile(plan)
			if code != 0 || !sameJSON(t, []byte(js), file) {
				t.Errorf("plan show --format json (exit %d, %s) does not reproduce the plan", code, errs)
			}
		})
	}
}

func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return string(ja) == string(jb)
}

// TestPlanMembersAreModelNodes: every member of every kernel of a graph
// plan is a node of the model as the model labels it (its name, or #ID
// for an unnamed node), never a fused body's own numbering (issue 26
// item 2), and every model node that runs is some kernel's member once.
func TestPlanMembersAreModelNodes(t *testing.T) {
	model := filepath.Join("..", "..", "shared", "models", "cnn", "ultraface_version-RFB-320.onnx")
	if _, err := os.Stat(model); err != nil {
		t.Skip("../shared/models absent")
	}
	plan := filepath.Join(t.TempDir(), "plan.json")
	if _, errs, code := run("optimize", model, "-o", plan); code != 0 {
		t.Fatalf("optimize: %s", errs)
	}
	m, err := importer.Load(model, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	labels := map[string]string{}
	for _, n := range m.Graph.Nodes {
		labels[ir.NodeLabel(n)] = n.Op
	}
	data, _ := os.ReadFile(plan)
	var p struct {
		Kernels []struct {
			Name    string   `json:"name"`
			Members []string `json:"members"`
		} `json:"kernels"`
	}
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, k := range p.Kernels {
		for _, mb := range k.Members {
			if _, ok := labels[mb]; !ok {
				t.Errorf("kernel %s: member %s is not a node of the model", k.Name, mb)
			}
			if prev, dup := seen[mb]; dup {
				t.Errorf("node %s is a member of %s and %s", mb, prev, k.Name)
			}
			seen[mb] = k.Name
		}
	}
	if len(seen) < 100 {
		t.Errorf("only %d model nodes are kernel members", len(seen))
	}
}
