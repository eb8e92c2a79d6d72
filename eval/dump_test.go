package eval

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/wolong-dev/wolong/importer"
)

// TestDumpCase prints one conformance case's inputs, expected and actual
// outputs; set WOLONG_DUMP=suite/test to run it (a debugging aid).
func TestDumpCase(t *testing.T) {
	name := os.Getenv("WOLONG_DUMP")
	if name == "" {
		t.Skip("set WOLONG_DUMP=suite/test")
	}
	dir := filepath.Join(conformanceRoot, name)
	m, err := importer.Load(filepath.Join(dir, "model.onnx"), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range m.Graph.Nodes {
		fmt.Printf("node %s %s in=%d out=%d\n", n.QualifiedOp(), n.Name, len(n.Inputs), len(n.Outputs))
		for _, a := range n.Attrs {
			fmt.Printf("   attr %s type=%s i=%d f=%g s=%q ints=%v floats=%v\n", a.Name, a.Type, a.I, a.F, a.S, a.Ints, a.Floats)
		}
	}
	show := func(label string, v Value) {
		if t, ok := v.(*Tensor); ok {
			fmt.Printf("%s %s F=%v D=%v I=%v B=%v S=%q\n", label, t, head(t.F), head(t.D), head(t.I), head(t.B), head(t.S))
			return
		}
		fmt.Printf("%s %#v\n", label, v)
	}
	inputs := map[string]Value{}
	for i, in := range m.Graph.Inputs {
		p := filepath.Join(dir, "test_data_set_0", fmt.Sprintf("input_%d.pb", i))
		v, err := ReadValueFile(p, KindOf(in), DefaultMaxMemory)
		if err != nil {
			fmt.Println("input", i, err)
			continue
		}
		inputs[in.Name] = v
		show("input "+in.Name, v)
	}
	got, err := Run(m, inputs, Options{})
	fmt.Println("run error:", err)
	for i, o := range m.Graph.Outputs {
		w, _ := ReadValueFile(filepath.Join(dir, "test_data_set_0", fmt.Sprintf("output_%d.pb", i)), KindOf(o), DefaultMaxMemory)
		show("want "+o.Name, w)
		if i < len(got) {
			show("got  "+o.Name, got[i])
		}
	}
}

func head[T any](s []T) []T {
	if len(s) > 40 {
		return s[:40]
	}
	return s
}
