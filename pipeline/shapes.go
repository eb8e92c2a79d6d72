package pipeline

// This file holds the shapes a caller gives a model's inputs and their
// check against the model: the one place that refuses shapes a model
// cannot take (Load calls it for every model).

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/wolong-dev/wolong/ir"
)

// GivenDim gives a symbolic dim of the inputs a value.
type GivenDim struct {
	Name  string
	Value int64
	// Source is how messages name where the value came from (a command
	// line sets "--dim N=1"); "" names it "N=1".
	Source string
}

// GivenInput gives a graph input a shape.
type GivenInput struct {
	Name  string
	Shape ir.Shape
	// Text is the shape as given, "name=1x3x224x224", for messages.
	Text string
	// Source is how messages name where the shape came from (a command
	// line sets "--input x=1x3"); "" names it "input " + Text.
	Source string
	// RecordedBy names the measurement file that recorded the shape
	// ("": the caller gave it). A recorded shape of an input the model
	// lacks is left to the measurement's matching to judge, and a
	// recorded shape the model cannot take is a failure of that file,
	// not a mistake of the caller (ShapeError.Recorded).
	RecordedBy string
}

// source names where the shape came from, for messages about another.
func (g GivenInput) source() string {
	switch {
	case g.RecordedBy != "":
		return g.RecordedBy + " records " + g.Text
	case g.Source != "":
		return g.Source
	}
	return "input " + g.Text
}

// errorSource names the shape at the start of an error about it.
func (g GivenInput) errorSource() string {
	if g.RecordedBy != "" {
		return g.RecordedBy + " records input " + g.Text
	}
	return g.source()
}

func (d GivenDim) source() string {
	if d.Source != "" {
		return d.Source
	}
	return fmt.Sprintf("%s=%d", d.Name, d.Value)
}

// ShapeError is a given shape or dim the model cannot take. Its message
// names the shape as its Source says and what the model declares; it
// names no command-line flag (a command adds its hint from the fields).
type ShapeError struct {
	Source string // the given shape or dim, as its Source names it
	Msg    string
	// Recorded says the shape came from a measurement file.
	Recorded bool
	// FixedDim, when >= 0, is the dim of the input whose declared fixed
	// value the shape contradicts (LoadOptions.Force would allow it).
	FixedDim int
	// NotTensor says the input is not a tensor, so no shape applies.
	NotTensor bool
}

func (e *ShapeError) Error() string { return e.Source + ": " + e.Msg }

func (g GivenInput) errf(format string, args ...any) *ShapeError {
	return &ShapeError{Source: g.errorSource(), Msg: fmt.Sprintf(format, args...), Recorded: g.RecordedBy != "", FixedDim: -1}
}

// symbolName is what a symbolic dim may be called (ONNX dim_param names
// as exporters write them: "batch_size", "N", "unk__12", "seq.len").
var symbolName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.]*$`)

// ParseShape reads "1x3x224x224": dims are whole numbers >= 0 or names
// ("Nx3x224x224"); "scalar" is a rank-0 shape.
func ParseShape(spec string) (ir.Shape, error) {
	spec = strings.TrimSpace(spec)
	switch spec {
	case "":
		return ir.Shape{}, fmt.Errorf("no shape after '=' (give dims such as 1x3x224x224, or scalar for a rank-0 input)")
	case "scalar":
		return ir.Shape{Known: true}, nil
	}
	var dims []ir.Dim
	for i, p := range strings.Split(spec, "x") {
		p = strings.TrimSpace(p)
		if v, err := strconv.ParseInt(p, 10, 64); err == nil {
			if v < 0 {
				return ir.Shape{}, fmt.Errorf("dim %d is negative (%d)", i, v)
			}
			dims = append(dims, ir.D(v))
			continue
		}
		if !symbolName.MatchString(p) {
			return ir.Shape{}, fmt.Errorf("dim %d is %q: want a whole number >= 0 or a name such as N", i, p)
		}
		dims = append(dims, ir.S(p))
	}
	return ir.DimsShape(dims...), nil
}

// ShapeText writes dims as ParseShape reads them ("1x3x224x224";
// "scalar" for none).
func ShapeText(dims []int64) string {
	text := make([]string, len(dims))
	for i, d := range dims {
		text[i] = strconv.FormatInt(d, 10)
	}
	if len(text) == 0 {
		return "scalar"
	}
	return strings.Join(text, "x")
}

// declaredType is the type the model gives a graph input: the file's
// declaration, else what import set.
func declaredType(v *ir.Value) ir.Type {
	if v.Declared != nil {
		return *v.Declared
	}
	return v.Type
}

// binding is the value a symbolic dim takes and where it came from.
type binding struct {
	val  int64
	from string
}

// givenOptions returns the inference options the given shapes make for
// g's inputs (recorded shapes of inputs g lacks are left out), with the
// values derived for shared symbolic dims.
func givenOptions(g *ir.Graph, dims []GivenDim, inputs []GivenInput, derived map[string]int64) ir.InferOptions {
	opt := ir.InferOptions{Dims: map[string]int64{}, Inputs: map[string]ir.Shape{}}
	for _, d := range dims {
		opt.Dims[d.Name] = d.Value
	}
	have := map[string]bool{}
	for _, in := range g.Inputs {
		have[in.Name] = true
	}
	for _, in := range inputs {
		if have[in.Name] || in.RecordedBy == "" {
			opt.Inputs[in.Name] = in.Shape
		}
	}
	for name, v := range derived {
		opt.Dims[name] = v
	}
	return opt
}

// checkShapes refuses, as a *ShapeError naming the shape and what the
// model declares, a shape for an input the main graph does not have (or
// for an initializer), of another rank than declared, or with a dim that
// contradicts a concrete declared dim; a symbolic dim given two different
// values (by a dim and a shape, or by two shapes); and a dim for a name
// no input dim has. It returns the values given shapes give to declared
// symbolic dims no GivenDim sets, so that other inputs sharing the name
// get the same value. With force, a shape may change concrete dims (the
// rank must still match).
func checkShapes(g *ir.Graph, dims []GivenDim, inputs []GivenInput, force bool) (map[string]int64, error) {
	byName := map[string]*ir.Value{}
	var names []string
	symbols := map[string]bool{}
	for _, in := range g.Inputs {
		byName[in.Name] = in
		if in.Const != nil {
			continue
		}
		names = append(names, in.Name)
		for _, d := range declaredType(in).Shape.Dims {
			if d.IsSymbolic() {
				symbols[d.Sym] = true
			}
		}
	}
	bound := map[string]binding{}
	for _, d := range dims {
		bound[d.Name] = binding{d.Value, d.source()}
	}
	derived := map[string]int64{}
	for _, f := range inputs {
		in := byName[f.Name]
		switch {
		case in == nil && f.RecordedBy != "":
			continue // the profile's matching says whether it fits
		case in == nil:
			return nil, f.errf("the model has no input %s (its inputs: %s)", f.Name, listOrNone(names))
		case in.Const != nil:
			return nil, f.errf("%s is a weight (an initializer), not an input the model is fed (its inputs: %s)", f.Name, listOrNone(names))
		}
		decl := declaredType(in)
		for _, d := range f.Shape.Dims {
			if d.IsSymbolic() {
				symbols[d.Sym] = true
			}
		}
		if decl.Kind != ir.KindTensor && decl.Kind != ir.KindUnknown {
			e := f.errf("the model declares %s as %s", f.Name, decl)
			e.NotTensor = true
			return nil, e
		}
		if !decl.Shape.Known {
			continue
		}
		if len(decl.Shape.Dims) != len(f.Shape.Dims) {
			return nil, f.errf("the model declares %s as %s (rank %d)", f.Name, decl, len(decl.Shape.Dims))
		}
		for i, dd := range decl.Shape.Dims {
			gd := f.Shape.Dims[i]
			if gd.IsSymbolic() {
				if b, ok := bound[gd.Sym]; ok {
					gd = ir.D(b.val)
				}
			}
			switch {
			case force && dd.IsConcrete():
			case dd.IsConcrete() && gd.IsConcrete() && gd.Val != dd.Val:
				e := f.errf("the model declares %s as %s: dim %d is %d, not %d", f.Name, decl, i, dd.Val, gd.Val)
				e.FixedDim = i
				return nil, e
			case dd.IsConcrete() && gd.IsSymbolic():
				e := f.errf("the model declares %s as %s: dim %d is %d, not %s", f.Name, decl, i, dd.Val, gd.Sym)
				e.FixedDim = i
				return nil, e
			case dd.IsSymbolic() && gd.IsConcrete():
				if b, ok := bound[dd.Sym]; ok && b.val != gd.Val {
					return nil, f.errf("the model declares %s as %s, and %s is %d (%s)", f.Name, decl, dd.Sym, b.val, b.from)
				}
				if _, ok := bound[dd.Sym]; !ok {
					bound[dd.Sym] = binding{gd.Val, f.source()}
					derived[dd.Sym] = gd.Val
				}
			}
		}
	}
	for _, d := range dims {
		if !symbols[d.Name] {
			var have []string
			for s := range symbols {
				have = append(have, s)
			}
			sort.Strings(have)
			what := "its inputs have no symbolic dims"
			if len(have) > 0 {
				what = "its inputs' symbolic dims: " + strings.Join(have, ", ")
			}
			return nil, &ShapeError{Source: d.source(), Msg: fmt.Sprintf("the model has no symbolic dim %s (%s)", d.Name, what), FixedDim: -1}
		}
	}
	return derived, nil
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
