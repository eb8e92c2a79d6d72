package cmd

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestKernelsVsORT checks wolong's kernel count after -O3 against ONNX
// Runtime 1.30's node count at its 'extended' level, measured once by
// bench/ort/kernels_vs_ort.sh into testdata/ort/kernels_vs_ort.tsv: it must
// be no higher on any model. Models with control flow or recurrent ops are
// left out: wolong counts the kernels launched per step (a Loop body times
// its trip count, an LSTM per time step), while ORT's node count counts
// such an op once.
func TestKernelsVsORT(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "testdata", "ort", "kernels_vs_ort.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := os.Stat(filepath.Join("..", "..", "shared")); err != nil {
		t.Skip("../shared not present")
	}
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	compared, lower := 0, 0
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) != 3 {
			t.Fatalf("bad row %q", sc.Text())
		}
		ortNodes, err := strconv.Atoi(cols[1])
		if err != nil {
			t.Fatal(err)
		}
		model := filepath.Join("..", "..", cols[0])
		out, errs, code := run("inspect", model, "--format", "json")
		if code != 0 {
			t.Errorf("%s: inspect: %s", cols[0], errs)
			continue
		}
		var ins struct {
			Ops map[string]int `json:"ops"`
		}
		json.Unmarshal([]byte(out), &ins)
		stateful := false
		for op := range ins.Ops {
			switch strings.TrimPrefix(op, "com.microsoft:") {
			case "Loop", "Scan", "If", "LSTM", "GRU", "RNN", "DynamicQuantizeLSTM":
				stateful = true
			}
		}
		if stateful {
			continue
		}
		out, errs, code = run("optimize", model, "-O3", "--format", "json")
		if code != 0 {
			t.Errorf("%s: optimize: %s", cols[0], errs)
			continue
		}
		var opt struct {
			Optimized struct {
				Kernels int `json:"kernels"`
			} `json:"optimized"`
		}
		if err := json.Unmarshal([]byte(out), &opt); err != nil {
			t.Fatal(err)
		}
		compared++
		k := opt.Optimized.Kernels
		if k > ortNodes {
			t.Errorf("%s: %d kernels after -O3, ONNX Runtime extended has %d nodes", cols[0], k, ortNodes)
		}
		if k < ortNodes {
			lower++
		}
	}
	t.Logf("compared %d models: wolong -O3 has fewer kernels than ORT's extended nodes on %d, as many on %d", compared, lower, compared-lower)
	if compared < 30 {
		t.Fatalf("only %d models compared", compared)
	}
}
