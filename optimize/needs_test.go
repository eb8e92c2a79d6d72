package optimize

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
)

// TestPassNeeds holds Pass.Needs to what the passes do: on every model
// at hand (the benchmark shapes, the pass files, the shared models under
// 32 MB), the passes run in pipeline order as the driver runs them but
// never skipped, and a pass that rewrites a model whose ops (counted
// just before it) do not meet its needs fails the test: its Needs would
// have skipped a rewrite. The last case shows the check can fail.
func TestPassNeeds(t *testing.T) {
	type named struct {
		name string
		m    *ir.Model
	}
	var models []named
	add := func(name string, m *ir.Model) {
		ir.InferModel(m, ir.InferOptions{})
		models = append(models, named{name, m})
	}
	for _, s := range modelgen.Shapes() {
		add("shape "+s.Name, s.Build(3000))
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "passes", "*", "*.wir"))
	for _, f := range files {
		if strings.HasSuffix(f, ".after.wir") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, err := ir.Parse(string(src))
		if err != nil {
			t.Fatal(err)
		}
		add(f, m)
	}
	shared, _ := filepath.Abs("../../shared/models")
	filepath.WalkDir(shared, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".onnx") {
			return nil
		}
		if fi, err := d.Info(); err != nil || fi.Size() > 32<<20 {
			return nil
		}
		m, err := importer.Load(p, importer.Options{})
		if err != nil {
			return nil // the importer's tests cover the models it refuses
		}
		t.Cleanup(func() { m.Close() })
		add(filepath.Base(p), m)
		return nil
	})
	t.Logf("%d models", len(models))
	checked := 0
	for _, x := range models {
		c := newContext(x.m, Options{Level: MaxLevel, OnChipBytes: 1 << 20})
		for _, p := range passes {
			if p.Level > MaxLevel || p.NeedsPlacer || p.ForORT || p.ControlFlow && !hasControlFlow(x.m.Graph) {
				continue
			}
			census := countOps(x.m)
			rw, err := runPassAll(c, p)
			if err != nil {
				t.Logf("%s: %v (left there)", x.name, err)
				break
			}
			if len(rw) == 0 {
				continue
			}
			if p.Needs != nil {
				checked++
				if !census.meets(p.Needs) {
					t.Errorf("%s: pass %s rewrote (%s) a model its Needs would skip it on", x.name, p.Name, rw[0])
				}
			}
			if err := ir.SortNodes(x.m.Graph); err != nil {
				t.Fatalf("%s after %s: %v", x.name, p.Name, err)
			}
		}
	}
	if checked == 0 {
		t.Error("no pass with Needs rewrote anything: the check checked nothing")
	}
	t.Logf("%d rewrites by passes with Needs checked", checked)

	// Can fail: attention's matches need a Softmax; needs naming Conv
	// instead are caught on an attention block.
	m := attentionBlock(t)
	if census := countOps(m); census.meets(needAll(ir.OpConv)) {
		t.Fatal("an attention block holds no Conv")
	}
	rw, err := runPassAll(newContext(m, Options{Level: MaxLevel}), Pass{Name: "attention", Fn: attentionFuse})
	if err != nil || len(rw) == 0 {
		t.Fatalf("attention found nothing to fuse in the block (%v): the can-fail case is void", err)
	}
}

// attentionBlock is one scaled dot-product attention in primitive ops.
func attentionBlock(t *testing.T) *ir.Model {
	t.Helper()
	for _, s := range modelgen.Shapes() {
		if s.Name == "encoder" {
			m := s.Build(200)
			ir.InferModel(m, ir.InferOptions{})
			return m
		}
	}
	t.Fatal("no encoder shape")
	return nil
}

// TestMayMatch: the driver skips a pass whose needs the model lacks, runs
// it when they are met, and counts again after a rewrite.
func TestMayMatch(t *testing.T) {
	m := attentionBlock(t)
	c := newContext(m, Options{Level: MaxLevel})
	att := Pass{Name: "attention", Fn: attentionFuse, Needs: needAll(ir.OpSoftmax, ir.OpMatMul)}
	bn := Pass{Name: "bnfold", Fn: bnFold, Needs: needAll(ir.OpBatchNormalization, ir.OpConv)}
	gelu := Pass{Name: "gelu", Fn: geluFuse, Needs: needAny(ir.OpErf, ir.OpTanh)}
	if !c.mayMatch(att) || c.mayMatch(bn) || !c.mayMatch(Pass{Name: "none"}) {
		t.Fatal("census of the encoder block: want attention to run, bnfold skipped, a pass without needs run")
	}
	if !c.mayMatch(gelu) {
		t.Fatal("the encoder block's erf GELU: want gelu to run")
	}
	res, err := Run(m, Options{Level: MaxLevel, Only: []string{"gelu"}, VerifyEach: true})
	if err != nil || len(res.Passes) == 0 || len(res.Passes[len(res.Passes)-1].Rewrites)+len(res.Passes[0].Rewrites) == 0 {
		t.Fatalf("gelu through the driver: %v", err)
	}
	if countOps(m).meets(needAny(ir.OpErf)) {
		t.Fatal("after gelu the encoder block still holds an Erf")
	}
}
