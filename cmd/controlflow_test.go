package cmd

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
)

// controlFlowInputs are the verify flags that give each generated
// control-flow model (modelgen.ControlFlowModels) concrete inputs, one
// entry per condition taken.
var controlFlowInputs = map[string][][]string{
	"wakeword_if":         {{"--fill", "enabled=1"}, {"--fill", "enabled=0"}},
	"vad_sr_if":           {{"--fill", "sr=16000"}, {"--fill", "sr=8000"}},
	"vad_sr_const":        {nil},
	"decoder_past_if":     {{"--dim", "T=4", "--dim", "P=3"}, {"--dim", "T=4", "--dim", "P=0"}},
	"loop_rnn":            {{"--dim", "T=5"}},
	"loop_rnn_trip8":      {nil},
	"scan_gru":            {{"--dim", "T=5"}},
	"scan_gru_t6":         {nil},
	"nested_if_loop_scan": {{"--fill", "flag=1"}, {"--fill", "flag=0"}},
	"loop_lstm":           {{"--dim", "T=5"}},
	"loop_lstm_t32":       {nil},
	"scan_gru_cell_t32":   {nil},
	"loop_wide_state":     {nil},
}

// TestControlFlowModels: every generated control-flow model, optimized
// at -O1, -O2 and -O3 with --emit-onnx, computes what the original does
// on every branch it can take (verify on wolong's evaluator and, where
// node is installed, in ONNX Runtime: verify --ort), and profile of the
// written model predicts optimize's "emitted" time within 1% with the
// same kernel count.
func TestControlFlowModels(t *testing.T) {
	if testing.Short() {
		t.Skip("optimizes and verifies every generated control-flow model (-short)")
	}
	_, nodeErr := exec.LookPath("node")
	dir := t.TempDir()
	models := modelgen.ControlFlowModels()
	var names []string
	for n := range models {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		src := filepath.Join(dir, name+".onnx")
		if err := importer.WriteFile(models[name], src); err != nil {
			t.Fatal(err)
		}
		inputs, ok := controlFlowInputs[name]
		if !ok {
			t.Fatalf("%s: no inputs in controlFlowInputs", name)
		}
		for level := 1; level <= 3; level++ {
			t.Run(fmt.Sprintf("%s/O%d", name, level), func(t *testing.T) {
				out := filepath.Join(dir, fmt.Sprintf("%s.O%d.onnx", name, level))
				stdout, errs, code := run("optimize", src, fmt.Sprintf("-O%d", level), "--emit-onnx", out, "--format", "json")
				if code != 0 {
					t.Fatalf("optimize: exit %d: %s", code, errs)
				}
				var opt struct {
					Emitted struct {
						TotalMs float64 `json:"total_ms"`
						Kernels int64
					}
				}
				if err := json.Unmarshal([]byte(stdout), &opt); err != nil {
					t.Fatal(err)
				}
				stdout, errs, code = run("profile", out, "--format", "json")
				var prof struct {
					TotalMs float64 `json:"total_ms"`
					Kernels int64
				}
				if code != 0 || json.Unmarshal([]byte(stdout), &prof) != nil {
					t.Fatalf("profile of the written model: exit %d: %s", code, errs)
				}
				if e := math.Abs(prof.TotalMs-opt.Emitted.TotalMs) / opt.Emitted.TotalMs; e > 0.01 || prof.Kernels != opt.Emitted.Kernels {
					t.Errorf("re-import: %.4f ms, %d kernels; optimize predicted %.4f ms, %d kernels", prof.TotalMs, prof.Kernels, opt.Emitted.TotalMs, opt.Emitted.Kernels)
				}
				for _, in := range inputs {
					args := append([]string{"verify", src, out}, in...)
					if _, errs, code := run(args...); code != 0 {
						t.Errorf("verify %s: exit %d: %s", strings.Join(in, " "), code, errs)
					}
					if nodeErr != nil {
						continue
					}
					if stdout, errs, code := run(append(args, "--ort")...); code != 0 {
						t.Errorf("verify --ort %s: exit %d: %s%s", strings.Join(in, " "), code, stdout, errs)
					}
				}
			})
		}
	}
	if nodeErr != nil {
		t.Log("node is not installed: outputs compared on wolong's evaluator only, not in ONNX Runtime")
	}
}

// TestControlFlowVsORT checks the node count of the model optimize -O3
// writes for each control-flow model of testdata/ort/
// controlflow_nodes_vs_ort.tsv (generated ones and shared ones), counting
// the main graph and every If/Loop/Scan body (a fused kernel one node),
// against ONNX Runtime 1.30's count at its extended level, measured by
// bench/controlflow/check.sh: it must be no higher on any model.
func TestControlFlowVsORT(t *testing.T) {
	if testing.Short() {
		t.Skip("optimizes every control-flow model (-short)")
	}
	src, err := os.ReadFile(filepath.Join("..", "testdata", "ort", "controlflow_nodes_vs_ort.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	_, sharedErr := os.Stat(filepath.Join("..", "..", "shared", "models"))
	dir := t.TempDir()
	generated := modelgen.ControlFlowModels()
	rows := strings.Split(strings.TrimSpace(string(src)), "\n")[1:]
	for _, row := range rows {
		cols := strings.Split(row, "\t")
		if len(cols) != 4 {
			t.Fatalf("bad row %q", row)
		}
		ortNodes, err := strconv.Atoi(cols[1])
		if err != nil {
			continue // ONNX Runtime could not load it
		}
		t.Run(cols[0], func(t *testing.T) {
			var model string
			if name, ok := strings.CutPrefix(cols[0], "generated/"); ok {
				m := generated[name]
				if m == nil {
					t.Fatalf("no generated model %s", name)
				}
				model = filepath.Join(dir, name+".onnx")
				if err := importer.WriteFile(m, model); err != nil {
					t.Fatal(err)
				}
			} else if sharedErr != nil {
				t.Skip("../shared not present")
			} else {
				model = filepath.Join("..", "..", "shared", "models", cols[0])
			}
			out := filepath.Join(dir, "opt.onnx")
			if _, errs, code := run("optimize", model, "-O3", "--emit-onnx", out); code != 0 {
				t.Fatalf("optimize: %s", errs)
			}
			m, err := importer.Load(out, importer.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			n := 0
			m.Graph.Walk(func(g *ir.Graph) bool {
				if g.ParentNode != nil && ir.IsFused(g.ParentNode) {
					return false
				}
				n += len(g.Nodes)
				return true
			})
			if n > ortNodes {
				t.Errorf("%d nodes (bodies included) after -O3, ONNX Runtime extended has %d", n, ortNodes)
			}
		})
	}
}
