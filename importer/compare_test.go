package importer

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"slices"

	"github.com/wolong-dev/wolong/ir"
)

// equalModels reports the first structural difference between two models:
// opsets, graph IO (names and declared types), initializers (name, type,
// dims, data bytes), nodes in order (op, domain, name, input and output
// names, attributes including subgraphs) and functions.
func equalModels(a, b *ir.Model) error {
	if a.IRVersion != b.IRVersion {
		return fmt.Errorf("ir_version %d vs %d", a.IRVersion, b.IRVersion)
	}
	if !reflect.DeepEqual(a.Opsets, b.Opsets) {
		return fmt.Errorf("opsets %v vs %v", a.Opsets, b.Opsets)
	}
	if !reflect.DeepEqual(a.Metadata, b.Metadata) {
		return fmt.Errorf("metadata differs")
	}
	if err := equalGraphs(a.Graph, b.Graph); err != nil {
		return err
	}
	if len(a.Functions) != len(b.Functions) {
		return fmt.Errorf("%d vs %d functions", len(a.Functions), len(b.Functions))
	}
	for i := range a.Functions {
		fa, fb := a.Functions[i], b.Functions[i]
		if fa.Name != fb.Name || fa.Domain != fb.Domain || !reflect.DeepEqual(fa.AttrNames, fb.AttrNames) {
			return fmt.Errorf("function %d: %s:%s vs %s:%s", i, fa.Domain, fa.Name, fb.Domain, fb.Name)
		}
		if err := equalGraphs(fa.Body, fb.Body); err != nil {
			return fmt.Errorf("function %s: %v", fa.Name, err)
		}
	}
	return nil
}

func names(vs []*ir.Value) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		if v != nil {
			out[i] = v.Name
		}
	}
	return out
}

func typeOf(v *ir.Value) string {
	if v.Declared != nil {
		return v.Declared.String()
	}
	return v.Type.String()
}

func equalGraphs(a, b *ir.Graph) error {
	if a.Name != b.Name {
		return fmt.Errorf("graph name %q vs %q", a.Name, b.Name)
	}
	if !reflect.DeepEqual(names(a.Inputs), names(b.Inputs)) || !reflect.DeepEqual(names(a.Outputs), names(b.Outputs)) {
		return fmt.Errorf("graph %q: IO names differ", a.Name)
	}
	for i := range a.Inputs {
		if a.Inputs[i].Type.String() != b.Inputs[i].Type.String() {
			return fmt.Errorf("graph %q: input %s: %s vs %s", a.Name, a.Inputs[i].Name, a.Inputs[i].Type, b.Inputs[i].Type)
		}
	}
	for i, v := range append(slices.Clone(a.Inputs), a.Outputs...) {
		w := append(slices.Clone(b.Inputs), b.Outputs...)[i]
		if v.Doc() != w.Doc() || !reflect.DeepEqual(v.Metadata(), w.Metadata()) {
			return fmt.Errorf("graph %q: value %s: doc or metadata differ: %+v vs %+v", a.Name, v.Name, v.Info, w.Info)
		}
	}
	for i := range a.Outputs {
		if a.Outputs[i].Declared != nil && typeOf(a.Outputs[i]) != typeOf(b.Outputs[i]) {
			return fmt.Errorf("graph %q: output %s: %s vs %s", a.Name, a.Outputs[i].Name, typeOf(a.Outputs[i]), typeOf(b.Outputs[i]))
		}
	}
	if len(a.Initializers) != len(b.Initializers) {
		return fmt.Errorf("graph %q: %d vs %d initializers", a.Name, len(a.Initializers), len(b.Initializers))
	}
	for i := range a.Initializers {
		if err := equalTensors(a.Initializers[i].Const, b.Initializers[i].Const); err != nil {
			return fmt.Errorf("graph %q: initializer %s: %v", a.Name, a.Initializers[i].Name, err)
		}
	}
	if len(a.Nodes) != len(b.Nodes) {
		return fmt.Errorf("graph %q: %d vs %d nodes", a.Name, len(a.Nodes), len(b.Nodes))
	}
	oa, _ := ir.Topo(a)
	ob, _ := ir.Topo(b)
	for i := range oa {
		na, nb := oa[i], ob[i]
		if na.Op != nb.Op || na.Domain != nb.Domain || na.Name != nb.Name {
			return fmt.Errorf("graph %q: node %d: %s %s vs %s %s", a.Name, i, na.QualifiedOp(), na.Name, nb.QualifiedOp(), nb.Name)
		}
		if !reflect.DeepEqual(names(na.Inputs), names(nb.Inputs)) || !reflect.DeepEqual(names(na.Outputs), names(nb.Outputs)) {
			return fmt.Errorf("graph %q: node %s: edges differ: %v->%v vs %v->%v", a.Name, na.Name, names(na.Inputs), names(na.Outputs), names(nb.Inputs), names(nb.Outputs))
		}
		if na.Overload() != nb.Overload() || na.Doc() != nb.Doc() || !reflect.DeepEqual(na.Metadata(), nb.Metadata()) {
			return fmt.Errorf("graph %q: node %s: overload, doc or metadata differ: %+v vs %+v", a.Name, na.Name, na.Info, nb.Info)
		}
		if len(na.Attrs) != len(nb.Attrs) {
			return fmt.Errorf("graph %q: node %s: %d vs %d attributes", a.Name, na.Name, len(na.Attrs), len(nb.Attrs))
		}
		for j := range na.Attrs {
			if err := equalAttrs(na.Attrs[j], nb.Attrs[j]); err != nil {
				return fmt.Errorf("graph %q: node %s: attribute %s: %v", a.Name, na.Name, na.Attrs[j].Name, err)
			}
		}
	}
	return nil
}

func equalAttrs(a, b *ir.Attr) error {
	if a.Name != b.Name || a.Type != b.Type || a.RefAttrName != b.RefAttrName {
		return fmt.Errorf("header %s/%v vs %s/%v", a.Name, a.Type, b.Name, b.Type)
	}
	if a.F != b.F || a.I != b.I || !bytes.Equal(a.S, b.S) || !reflect.DeepEqual(a.Ints, b.Ints) ||
		!equalFloatBits(a.Floats, b.Floats) || len(a.Strings) != len(b.Strings) {
		return fmt.Errorf("values differ")
	}
	for i := range a.Strings {
		if !bytes.Equal(a.Strings[i], b.Strings[i]) {
			return fmt.Errorf("strings differ")
		}
	}
	if (a.T == nil) != (b.T == nil) || (a.G == nil) != (b.G == nil) || len(a.Graphs) != len(b.Graphs) || len(a.Tensors) != len(b.Tensors) {
		return fmt.Errorf("kinds differ")
	}
	if a.T != nil {
		if err := equalTensors(a.T, b.T); err != nil {
			return err
		}
	}
	for i := range a.Tensors {
		if err := equalTensors(a.Tensors[i], b.Tensors[i]); err != nil {
			return err
		}
	}
	if a.G != nil {
		if err := equalGraphs(a.G, b.G); err != nil {
			return err
		}
	}
	for i := range a.Graphs {
		if err := equalGraphs(a.Graphs[i], b.Graphs[i]); err != nil {
			return err
		}
	}
	if (a.TP == nil) != (b.TP == nil) || (a.TP != nil && a.TP.String() != b.TP.String()) {
		return fmt.Errorf("type_proto differs")
	}
	return nil
}

func equalTensors(a, b *ir.Tensor) error {
	if a.Name != b.Name && a.Name != "" {
		return fmt.Errorf("name %q vs %q", a.Name, b.Name)
	}
	if a.DType != b.DType || !reflect.DeepEqual(a.Dims, b.Dims) {
		return fmt.Errorf("type %s%v vs %s%v", a.DType, a.Dims, b.DType, b.Dims)
	}
	if !bytes.Equal(a.Raw, b.Raw) || !equalFloatBits(a.Floats(), b.Floats()) || !reflect.DeepEqual(a.Int32s(), b.Int32s()) ||
		!reflect.DeepEqual(a.Int64s(), b.Int64s()) || !reflect.DeepEqual(a.Float64s(), b.Float64s()) || !reflect.DeepEqual(a.Uint64s(), b.Uint64s()) ||
		len(a.Strings()) != len(b.Strings()) {
		return fmt.Errorf("data differs")
	}
	return nil
}

// equalFloatBits compares floats bit for bit, so NaN equals NaN.
func equalFloatBits(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}
