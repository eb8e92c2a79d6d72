package cmd

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestProfileReadsWhatOptimizeWrote: wolong reads what it writes. For
// every shared model, `optimize MODEL --emit-onnx OUT` (default level -O3,
// default --hw h100, symbolic dims defaulted to 1 as optimize does) and
// then `profile OUT` (same defaults). Compared: profile's predicted step
// time with optimize's prediction for the model it wrote ("emitted", which
// is the "optimized" figure unless optimize kept symbolic dims for the
// file, see the assumptions) within 1%, and the same number of kernels;
// fused kernels read back under their kind (one op-table name per fused
// kind, no function names such as FusedConvRelu_3), none of them an
// "unknown operator". And `profile MODEL -O3` predicts what optimize
// predicted for its optimized model, within 1%.
func TestProfileReadsWhatOptimizeWrote(t *testing.T) {
	root := shared(t, "models")
	if testing.Short() {
		t.Skip("optimizes and profiles every shared model (-short)")
	}
	var files []string
	filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(p, ".onnx") {
			files = append(files, p)
		}
		return nil
	})
	dir := t.TempDir()
	funcName := regexp.MustCompile(`^wolong:.*_[0-9]+$`)
	for _, f := range files {
		name := strings.ReplaceAll(strings.TrimPrefix(f, root+string(filepath.Separator)), string(filepath.Separator), "__")
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(dir, name)
			stdout, errs, code := run("optimize", f, "--emit-onnx", out, "--format", "json")
			if code != 0 {
				t.Fatalf("optimize: exit %d: %s", code, errs)
			}
			var opt struct {
				Optimized struct {
					TotalMs float64 `json:"total_ms"`
					Kernels int64
				}
				Emitted *struct {
					TotalMs float64 `json:"total_ms"`
					Kernels int64
				}
				Assumptions []string
			}
			if err := json.Unmarshal([]byte(stdout), &opt); err != nil || opt.Emitted == nil {
				t.Fatalf("optimize JSON (%v): no emitted prediction", err)
			}
			kept := false
			for _, a := range opt.Assumptions {
				kept = kept || strings.Contains(a, "symbolic dims kept")
			}
			if !kept && opt.Emitted.TotalMs != opt.Optimized.TotalMs {
				t.Errorf("emitted %.6f ms, optimized %.6f ms: the same model", opt.Emitted.TotalMs, opt.Optimized.TotalMs)
			}
			// profile -O3 runs the same passes on the model as it is.
			stdout, errs, code = run("profile", f, "-O3", "--format", "json")
			var direct struct {
				TotalMs float64 `json:"total_ms"`
			}
			if code != 0 || json.Unmarshal([]byte(stdout), &direct) != nil {
				t.Fatalf("profile -O3: exit %d: %s", code, errs)
			}
			if e := math.Abs(direct.TotalMs-opt.Optimized.TotalMs) / opt.Optimized.TotalMs; e > 0.01 {
				t.Errorf("profile -O3 %.4f ms, optimize %.4f ms (%.2f%% off)", direct.TotalMs, opt.Optimized.TotalMs, 100*e)
			}
			stdout, errs, code = run("profile", out, "--format", "json")
			if code != 0 {
				t.Fatalf("profile of the written model: exit %d: %s", code, errs)
			}
			var prof struct {
				TotalMs  float64 `json:"total_ms"`
				Kernels  int64
				Warnings []string
				Ops      []struct{ Op string }
			}
			if err := json.Unmarshal([]byte(stdout), &prof); err != nil {
				t.Fatal(err)
			}
			if e := math.Abs(prof.TotalMs-opt.Emitted.TotalMs) / opt.Emitted.TotalMs; e > 0.01 {
				t.Errorf("profile %.4f ms, optimize predicted %.4f ms for the written model (%.2f%% off)", prof.TotalMs, opt.Emitted.TotalMs, 100*e)
			}
			if prof.Kernels != opt.Emitted.Kernels {
				t.Errorf("profile %d kernels, optimize %d", prof.Kernels, opt.Emitted.Kernels)
			}
			for _, o := range prof.Ops {
				if funcName.MatchString(o.Op) {
					t.Errorf("op table lists the function %s, not its fused kind", o.Op)
				}
			}
			for _, w := range prof.Warnings {
				if strings.Contains(w, "unknown operator") && strings.Contains(w, "wolong") {
					t.Errorf("a fused kernel read back as an unknown operator: %s", w)
				}
			}
		})
	}
}
