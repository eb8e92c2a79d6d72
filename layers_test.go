package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// module is this repository's module path.
const module = "github.com/wolong-dev/wolong"

// layers places every package of the module in a layer: a package may
// import only packages of lower layers (data flows one way: importer ->
// ir -> optimize -> simulate -> report, cmd wiring them). A new package
// gets a row here, and docs/architecture.md says where it sits.
var layers = map[string]int{
	// leaf utilities: the standard library only
	"internal/fieldcheck": 0, "internal/strictjson": 0, "internal/pbwire": 0, "internal/safefile": 0,
	"internal/mulberry": 0, "internal/hugeheap": 0,
	"ir": 1,
	// the hostile-input catalogue writes its damage with pbwire
	"internal/hostile": 1,
	// readers and writers of ir: the ONNX importer, the model builder, the
	// ONNX Runtime harness
	"importer": 2, "internal/modelgen": 2, "internal/ortbench": 2,
	"eval":     3,
	"optimize": 4, "simulate/hw": 4,
	// error bands from the evidence behind a preset
	"simulate/cost": 5, "simulate/band": 5,
	"simulate":           6,
	"simulate/calibrate": 7, "simulate/cluster": 7,
	"simulate/llm":            8,
	"simulate/calibrate/host": 9, "pipeline": 9,
	// what-if edits of the hardware, network and host presets and the LLM
	// layout (it reads the cluster and the planner)
	"simulate/whatif": 9,
	"report":          10,
	"cmd":             11,
	// programs
	"": 12, "bench/controlflow": 12, "bench/rusage": 12, "bench/hostcheck": 12, "bench/html": 12, "bench/mutate": 12, "bench/machineref": 12, "bench/gemmstream": 12, "bench/pagefault": 12,
}

// moduleImports maps each package below root (testdata and hidden folders
// left out) to the module packages its non-test files import.
func moduleImports(t *testing.T, root string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(p))
		if pkg == "." {
			pkg = ""
		}
		if _, ok := out[pkg]; !ok {
			out[pkg] = nil
		}
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			if path == module || strings.HasPrefix(path, module+"/") {
				out[pkg] = append(out[pkg], strings.TrimPrefix(strings.TrimPrefix(path, module), "/"))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestLayers: every package is in the layer table, imports only lower
// layers, and nothing under internal/ imports simulate/cluster or
// simulate/llm.
func TestLayers(t *testing.T) {
	imports := moduleImports(t, ".")
	var pkgs []string
	for p := range imports {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		lp, ok := layers[p]
		if !ok {
			t.Errorf("package %q has no layer: add it to layers (layers_test.go) and docs/architecture.md", p)
			continue
		}
		for _, im := range imports[p] {
			li, ok := layers[im]
			if ok && li >= lp {
				t.Errorf("%q (layer %d) imports %q (layer %d): a package imports only lower layers", p, lp, im, li)
			}
			if strings.HasPrefix(p, "internal/") && (im == "simulate/cluster" || im == "simulate/llm") {
				t.Errorf("%q imports %q: internal/ holds leaf utilities", p, im)
			}
		}
	}
}
