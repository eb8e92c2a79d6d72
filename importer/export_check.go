package importer

// This file checks an exported file against the model it was written
// from, before the file is moved into place.

import (
	"fmt"
	"strings"

	"github.com/wolong-dev/wolong/ir"
)

// CheckExported re-reads the ONNX file at path, written from m, and checks
// what a runtime checks when it loads it: the file decodes and passes the
// IR verifier; the main graph has m's inputs and outputs in order, with
// the types export wrote from m's IR; every domain a node or function uses
// is imported (a function body's by the function or the model); and shape
// inference of the file contradicts none of the types it declares (graph
// outputs and value_info), which is how a stale declaration shows. It
// returns nil or an error naming the first problem and how many there
// are.
func CheckExported(m *ir.Model, path string) error {
	return checkExported(m, path, nil)
}

// checkExported is CheckExported with external data locations read from
// staged temporaries (Options.Staged).
func checkExported(m *ir.Model, path string, staged map[string]string) error {
	got, err := Load(path, Options{KeepFunctions: true, Staged: staged})
	if err != nil {
		return fmt.Errorf("the written model does not read back: %v", err)
	}
	defer got.Close()
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if err := ir.Verify(got); err != nil {
		add("%v", err)
	}
	checkSignature(m.Graph, got.Graph, add)
	checkDomains(got, add)
	res := ir.InferModel(got, ir.InferOptions{})
	for _, d := range res.Diagnostics {
		if d.Code == ir.CodeConflict {
			where := ""
			if d.Node != nil {
				where = " (node " + ir.NodeLabel(d.Node) + ")"
			}
			add("declared type contradicts the graph: %s%s", d.Msg, where)
		}
	}
	if len(problems) == 0 {
		return nil
	}
	more := ""
	if len(problems) > 1 {
		more = fmt.Sprintf(" (and %d more problem(s))", len(problems)-1)
	}
	return fmt.Errorf("export check: %s%s", problems[0], more)
}

// checkSignature compares the written graph's inputs and outputs with the
// IR's, position by position.
func checkSignature(want, got *ir.Graph, add func(string, ...any)) {
	if len(want.Inputs) != len(got.Inputs) || len(want.Outputs) != len(got.Outputs) {
		add("graph has %d inputs and %d outputs, the IR %d and %d", len(got.Inputs), len(got.Outputs), len(want.Inputs), len(want.Outputs))
		return
	}
	same := func(kind string, i int, w *ir.Type, g *ir.Value) {
		if !writableType(w) {
			return // written without a type
		}
		if g.Declared == nil || !typesEqual(*w, *g.Declared) {
			d := "none"
			if g.Declared != nil {
				d = g.Declared.String()
			}
			add("%s %d (%s) is declared %s, the IR has %s", kind, i, g.Name, d, w.String())
		}
	}
	for i, v := range want.Inputs {
		same("input", i, inputType(v), got.Inputs[i])
	}
	for i, v := range want.Outputs {
		same("output", i, outputType(v), got.Outputs[i])
	}
}

// typesEqual compares kind, dtype and shape (dims by value or symbol).
func typesEqual(a, b ir.Type) bool {
	if a.Kind != b.Kind || a.DType != b.DType || a.Shape.Known != b.Shape.Known || len(a.Shape.Dims) != len(b.Shape.Dims) {
		return false
	}
	for i, d := range a.Shape.Dims {
		e := b.Shape.Dims[i]
		if d.IsConcrete() != e.IsConcrete() || d.IsConcrete() && d.Val != e.Val || d.IsSymbolic() && d.Sym != e.Sym {
			return false
		}
	}
	if (a.Elem == nil) != (b.Elem == nil) {
		return false
	}
	return a.Elem == nil || typesEqual(*a.Elem, *b.Elem)
}

// checkDomains reports node domains no opset_import covers.
func checkDomains(m *ir.Model, add func(string, ...any)) {
	imported := func(sets []ir.OpsetID, d string) bool {
		for _, o := range sets {
			if canonical(o.Domain) == canonical(d) && o.Version > 0 {
				return true
			}
		}
		return false
	}
	missing := map[string]bool{}
	walk := func(g *ir.Graph, sets []ir.OpsetID) {
		g.Walk(func(sg *ir.Graph) bool {
			for _, n := range sg.Nodes {
				if !imported(sets, n.Domain) && !imported(m.Opsets, n.Domain) && !missing[n.Domain] {
					missing[n.Domain] = true
					add("node %s uses domain %q, which the model does not import", ir.NodeLabel(n), n.Domain)
				}
			}
			return true
		})
	}
	walk(m.Graph, nil)
	for _, f := range m.Functions {
		if !imported(m.Opsets, f.Domain) && !missing[f.Domain] {
			missing[f.Domain] = true
			add("function %s has domain %q, which the model does not import", f.Name, f.Domain)
		}
		if f.Body != nil {
			walk(f.Body, f.Opsets)
		}
	}
}

func canonical(d string) string {
	return strings.TrimSpace(ir.CanonicalDomain(d))
}
